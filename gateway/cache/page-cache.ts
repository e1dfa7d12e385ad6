import { LRUCache } from 'lru-cache'
import { weakEtag } from '../http-caching.ts'

export interface CachedPage {
  statusCode: number
  headers: Record<string, string>
  body: Buffer
  etag: string
  freshUntil: number
}

export interface PageCacheOptions {
  maxEntries: number
  maxBytes: number
  ttlMs: number
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
      sizeCalculation: (page) => Math.max(1, page.body.byteLength + 256),
    })
  }

  get size(): number {
    return this.lru.size
  }

  get(key: string): CachedPage | undefined {
    const page = this.lru.get(key)
    if (page && this.now() < page.freshUntil) return page
    return undefined
  }

  /** A token for `store`: a purge in between makes the store a no-op. */
  ticket(): number {
    return this.generation
  }

  store(ticket: number, key: string, statusCode: number, headers: Record<string, string>, body: Buffer): void {
    if (ticket !== this.generation || body.byteLength > this.options.maxBytes / 4) return
    this.lru.set(key, { statusCode, headers, body, etag: weakEtag(body), freshUntil: this.now() + this.options.ttlMs }, { ttl: this.options.ttlMs })
  }

  clear(): void {
    this.generation++
    this.lru.clear()
  }
}
