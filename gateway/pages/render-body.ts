import { LRUCache } from 'lru-cache'
import { RENDER_BODY_MEMO_MAX_BYTES } from '../../shared/constants.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { encodeRenderRequest } from '../../shared/render-request.ts'
import { scriptJson } from '../../shared/script-json.ts'
import { dataJsonOf, payloadJsonWithHead } from '../payload/payload-json.ts'

/** How a body is signed for the path it goes to: the full body's signature, and that of a reference to it. */
export interface BodySignatures {
  path: string
  full: string
  reference: string
}

/**
 * A render request's body as it goes to the renderers: encoded to bytes once,
 * signed once per path, and remembered by the renderers that said they kept
 * it, which are sent a reference to it from then on instead of the bytes.
 */
export class RenderBody {
  signatures: BodySignatures | undefined
  /** Origins of the renderers that kept this body's data (RENDER_DATA_KEPT_HEADER). */
  readonly keptBy = new Set<string>()

  constructor(readonly bytes: Buffer) {}

  static of(text: string): RenderBody {
    return new RenderBody(Buffer.from(text))
  }
}

/** Bytes an entry holds beyond its body: the key, the head's text and the memo's own bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 512

interface MemoEntry {
  /** The payload without its data, as JSON: status, paths, pending loaders. */
  head: string
  /** Each loader's key and data object in turn, the primary part's then the deferred part's: compared by identity. */
  parts: readonly unknown[]
  body: RenderBody
}

function partsOf(payload: PagePayload, deferred: Record<string, unknown> | undefined): unknown[] {
  const parts: unknown[] = []
  for (const key in payload.data) parts.push(key, payload.data[key])
  if (deferred === undefined) return parts
  parts.push(DEFERRED_MARK)
  for (const key in deferred) parts.push(key, deferred[key])
  return parts
}

const DEFERRED_MARK = Symbol('deferred')

function sameParts(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * The render request body of each live page, kept while its data is the
 * same: the query cache hands out the same answer objects on every hit and
 * never changes them, so the same page with the same objects gives the same
 * bytes. Reusing the body saves its JSON, its encoding and its signature on
 * every render, and keeps the renderers' note of who holds it, which lets
 * them be sent a reference instead. Bounded by bytes; previews never enter.
 */
export class RenderBodyMemo {
  private readonly entries: LRUCache<string, MemoEntry>

  constructor(maxBytes = RENDER_BODY_MEMO_MAX_BYTES) {
    this.entries = new LRUCache<string, MemoEntry>({ maxSize: maxBytes, sizeCalculation: (entry, key) => entry.body.bytes.byteLength + entry.head.length + key.length + ENTRY_OVERHEAD_BYTES })
  }

  /** The body of a page's render request with this payload and deferred data: the kept one when nothing changed. */
  bodyOf(pageKey: string, payload: PagePayload, deferred?: Record<string, unknown>): RenderBody {
    const { data: _data, ...rest } = payload
    const head = scriptJson(rest)
    const parts = partsOf(payload, deferred)
    const known = this.entries.get(pageKey)
    if (known && known.head === head && sameParts(known.parts, parts)) return known.body
    const body = RenderBody.of(encodeRenderRequest(payloadJsonWithHead(head, payload.data), deferred === undefined ? undefined : dataJsonOf(deferred)))
    this.entries.set(pageKey, { head, parts, body })
    return body
  }

  /** Bytes held, as the memo counts them. */
  get bytes(): number {
    return this.entries.calculatedSize
  }
}
