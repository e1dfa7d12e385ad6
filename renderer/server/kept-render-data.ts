import { LRUCache } from 'lru-cache'
import type { PagePayload } from '../../shared/payload.ts'
import type { DeferredData } from '../app/screens/types.ts'

/**
 * A render request's data as the renderer uses it: decoded, its rich text
 * cleaned, and the JSON the page embeds for hydration made once.
 */
export interface ReadyRenderData {
  payload: PagePayload
  /** The cleaned payload as script-safe JSON, for the page's payload script. */
  payloadJson: string
  /** The cache tags of the data sent, which the render's answer says with those of anything it fetched. */
  tags: readonly string[]
  /** The cleaned deferred data, when it was handed over: resolved, with its script-safe JSON for the script the browser hydrates it from. */
  deferred?: DeferredData
}

interface KeptEntry {
  /** The path with query the data came for: a reference must come for the same one. */
  url: string
  data: ReadyRenderData
}

/**
 * What decoded data costs beyond the bytes it came as: objects, strings held
 * twice (the parsed data and the JSON kept for the page), and the memo's
 * bookkeeping. Measured on the home page's render request: a body of ~10 KB
 * held ~30 KB of heap once decoded, cleaned and kept.
 */
const HELD_PER_BODY_BYTE = 4
const ENTRY_OVERHEAD_BYTES = 1024

/**
 * The data of the render requests a renderer took, kept by their body's
 * SHA-256 (contentDigest) and the path they came for. Each request is
 * signed afresh, but a second one for the same path with a body of the same
 * digest carries the same data: it skips decoding and cleaning, and a
 * reference (RENDER_REFERENCE_CONTENT_TYPE) can stand for the whole body.
 * Bounded by the bytes the data holds; only signed requests enter, so
 * nobody but the gateway can fill it.
 */
export class KeptRenderData {
  private readonly entries: LRUCache<string, KeptEntry>

  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, KeptEntry>({ maxSize: maxBytes, sizeCalculation: (entry) => (entry.data.payloadJson.length + (entry.data.deferred?.json?.length ?? 0)) * HELD_PER_BODY_BYTE + entry.url.length + ENTRY_OVERHEAD_BYTES })
  }

  /** The data kept under a body's digest for this path with query; undefined when none is (never kept, evicted, or for another path). */
  get(digest: string, url: string): ReadyRenderData | undefined {
    const entry = this.entries.get(digest)
    return entry?.url === url ? entry.data : undefined
  }

  /** Keeps the data under its body's digest; whether it was kept (data larger than the whole memo is not). */
  keep(digest: string, url: string, data: ReadyRenderData): boolean {
    this.entries.set(digest, { url, data })
    return this.entries.has(digest)
  }

  /** Bytes held, as the memo counts them. */
  get bytes(): number {
    return this.entries.calculatedSize
  }

  get size(): number {
    return this.entries.size
  }
}
