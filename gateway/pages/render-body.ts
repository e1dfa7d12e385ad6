import { LRUCache } from 'lru-cache'
import { RENDER_BODY_MEMO_MAX_BYTES } from '../../shared/constants.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { contentDigest, encodeRenderRequest } from '../../shared/render-protocol/index.ts'
import { scriptJson } from '../../shared/script-json.ts'
import { dataJsonOf, payloadJsonWithHead } from '../payload/payload-json.ts'

/**
 * A render request's body as it goes to the renderers: encoded to bytes once,
 * digested once (each request is signed afresh over the digest), and
 * remembered by the renderers that said they kept it, which are sent a
 * reference to it (the digest) from then on instead of the bytes.
 */
export class RenderBody {
  private digested: string | undefined
  private referenceDigested: string | undefined
  /** Origins of the renderers that kept this body's data (RENDER_DATA_KEPT_HEADER). */
  readonly keptBy = new Set<string>()

  constructor(readonly bytes: Buffer) {}

  /** The bytes' SHA-256 (contentDigest): what a signature covers of them, and a reference's body. */
  get digest(): string {
    this.digested ??= contentDigest(this.bytes)
    return this.digested
  }

  /** The digest of a reference's body (the digest above): what a reference's signature covers. */
  get referenceDigest(): string {
    this.referenceDigested ??= contentDigest(this.digest)
    return this.referenceDigested
  }

  static of(text: string): RenderBody {
    return new RenderBody(Buffer.from(text))
  }
}

/** Bytes an entry holds beyond its body: the key, the head's text and the memo's own bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 512

/**
 * What a page's whole render request was built from: the pages' cache keys
 * and answers of its loaders (primary and deferred), and the documents'
 * generation they were asked under. While each key still holds the same
 * fresh answer, the page would be built the same, tags and all.
 */
export interface RenderSources {
  keys: string[]
  answers: unknown[]
  generation: number
}

/** Whether the answers a render was built from are unchanged (ContentService.stillFresh); counts each as a hit when they are. */
export type StillFresh = (keys: readonly string[], answers: readonly unknown[], generation: number) => boolean

interface MemoEntry {
  /** The payload without its data, as JSON: status, paths, pending loaders. */
  head: string
  /** Each loader's key and data object in turn, the primary part's then the deferred part's: compared by identity. */
  parts: readonly unknown[]
  body: RenderBody
  /** Set when the body holds the whole page (no deferred part left to the renderer) and every answer came from the pages' cache. */
  sources?: RenderSources
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

  /**
   * The body of a page's render request with this payload, the tags of its
   * data and its deferred data: the kept one when nothing changed (the tags
   * follow from the same answers). `sources`, when given, lets the next
   * render of the page take the body without building the payload (`reused`).
   */
  bodyOf(pageKey: string, payload: PagePayload, tags: readonly string[], deferred?: Record<string, unknown>, sources?: RenderSources): RenderBody {
    const { data: _data, ...rest } = payload
    const head = scriptJson(rest)
    const parts = partsOf(payload, deferred)
    const known = this.entries.get(pageKey)
    if (known && known.head === head && sameParts(known.parts, parts)) {
      known.sources = sources
      return known.body
    }
    const body = RenderBody.of(encodeRenderRequest(payloadJsonWithHead(head, payload.data), tags, deferred === undefined ? undefined : dataJsonOf(deferred)))
    this.entries.set(pageKey, { head, parts, body, ...(sources ? { sources } : {}) })
    return body
  }

  /**
   * A page's kept body (its tags in it), while every answer it was built
   * from is still the same fresh one: the payload would come out the same,
   * so it is not built again (route, loaders, keys, JSON).
   */
  reused(pageKey: string, stillFresh: StillFresh): RenderBody | undefined {
    const entry = this.entries.get(pageKey)
    const sources = entry?.sources
    if (!entry || !sources || !stillFresh(sources.keys, sources.answers, sources.generation)) return undefined
    return entry.body
  }

  /** Bytes held, as the memo counts them. */
  get bytes(): number {
    return this.entries.calculatedSize
  }
}
