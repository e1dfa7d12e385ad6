import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import { LRUCache } from 'lru-cache'
import { weakEtag } from '../http/http-caching.ts'
import { touchesEveryPage } from './cache-tags.ts'

export interface CachedPage {
  statusCode: number
  headers: Record<string, string>
  body: Buffer
  /** The same bytes encoded once when stored, so a hit never compresses. */
  gzip?: Buffer
  brotli?: Buffer
  etag: string
  freshUntil: number
  /** What the page was built from (sections, `entry:<id>`), so that a purge of any of them drops it. */
  tags: readonly string[]
}

/** Compressing pays off only above this size (as for the compression of live answers). */
const MIN_ENCODED_BYTES = 1024
/** Encoded once per stored page: brotli 5 is about 1 ms for a page and within 1 % of quality 9 (12 ms). */
const BROTLI_QUALITY = 5
const GZIP_LEVEL = 9

export interface PageCacheOptions {
  maxEntries: number
  maxBytes: number
  ttlMs: number
  /** How long past its TTL a page is kept to stand in while no renderer answers. */
  staleIfErrorMs: number
  now?: () => number
}

/**
 * Whole pages by path and query: only complete 200 answers rendered without a
 * preview token. Bounded by entries and bytes like the query cache.
 */
export class PageCache {
  private readonly lru: LRUCache<string, CachedPage>
  private readonly now: () => number
  private generation = 0

  constructor(private readonly options: PageCacheOptions) {
    this.now = options.now ?? Date.now
    this.lru = new LRUCache<string, CachedPage>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      sizeCalculation: (page) => page.body.byteLength + (page.gzip?.byteLength ?? 0) + (page.brotli?.byteLength ?? 0) + 256,
    })
  }

  get size(): number {
    return this.lru.size
  }

  /** The page of a key while it is fresh. */
  get(key: string): CachedPage | undefined {
    const page = this.lru.get(key)
    if (page && this.now() < page.freshUntil) return page
    return undefined
  }

  /** The page of a key, fresh or past its TTL within the stale-if-error window: for when no renderer can make it again. */
  stale(key: string): CachedPage | undefined {
    return this.lru.get(key)
  }

  /** A token for `store`: a purge in between makes the store a no-op. */
  ticket(): number {
    return this.generation
  }

  store(ticket: number, key: string, statusCode: number, headers: Record<string, string>, body: Buffer, tags: readonly string[] = []): void {
    // A TTL of 0 to lru-cache would mean kept for ever.
    const keptMs = this.options.ttlMs + this.options.staleIfErrorMs
    if (ticket !== this.generation || body.byteLength > this.options.maxBytes / 4 || keptMs <= 0) return
    const encoded =
      body.byteLength >= MIN_ENCODED_BYTES
        ? { gzip: gzipSync(body, { level: GZIP_LEVEL }), brotli: brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: body.byteLength } }) }
        : {}
    const freshUntil = this.now() + this.options.ttlMs
    this.lru.set(key, { statusCode, headers, body, ...encoded, etag: weakEtag(body), freshUntil, tags }, { ttl: keptMs })
  }

  clear(): void {
    this.generation++
    this.lru.clear()
  }

  /**
   * Drops every page, or those built from any of the tags; a page stored
   * without tags could show anything and goes too. Returns how many went.
   */
  purge(tags?: readonly string[]): number {
    const before = this.lru.size
    if (!tags || touchesEveryPage(tags)) {
      this.clear()
      return before
    }
    this.generation++
    const wanted = new Set(tags)
    for (const [key, page] of this.lru.entries()) {
      if (page.tags.length === 0 || page.tags.some((tag) => wanted.has(tag))) this.lru.delete(key)
    }
    return before - this.lru.size
  }
}
