import { LRUCache } from 'lru-cache'
import type { UpstreamAnswer } from '../craft/client.ts'

export type CacheStatus = 'HIT' | 'MISS' | 'STALE' | 'BYPASS'

export interface QueryCacheOptions {
  maxEntries: number
  maxBytes: number
  ttlMs: number
  staleWhileRevalidateMs: number
  staleIfErrorMs: number
  now?: () => number
  /** Told about a failed background refresh; the stale entry stays. */
  onRefreshError?: (key: string, error: unknown) => void
}

interface CachedAnswer {
  answer: UpstreamAnswer
  freshUntil: number
  sections: readonly string[]
}

export interface CacheLookup {
  answer: UpstreamAnswer
  status: CacheStatus
}

export interface CachePolicy {
  /** Whether this answer may be stored. */
  storable: (answer: UpstreamAnswer) => boolean
  /** Sections the answer was built from, for purging by section. */
  sections: (answer: UpstreamAnswer) => readonly string[]
}

/**
 * A keyed cache of upstream answers with the behaviour of an edge cache:
 * bounded by entries and bytes, single flight per key, stale-while-revalidate
 * with one background refresh per key, and stale-if-error.
 */
export class QueryCache {
  private readonly lru: LRUCache<string, CachedAnswer>
  private readonly inflight = new Map<string, Promise<UpstreamAnswer>>()
  private readonly options: QueryCacheOptions
  private readonly now: () => number
  /** Bumped by every purge, so a flight that started before it does not store old content. */
  private generation = 0

  constructor(options: QueryCacheOptions) {
    this.options = options
    this.now = options.now ?? Date.now
    this.lru = new LRUCache<string, CachedAnswer>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.answer.raw.byteLength + 64),
    })
  }

  get size(): number {
    return this.lru.size
  }

  get bytes(): number {
    return this.lru.calculatedSize
  }

  async fetch(key: string, load: () => Promise<UpstreamAnswer>, policy: CachePolicy): Promise<CacheLookup> {
    const entry = this.lru.get(key)
    const now = this.now()
    if (entry) {
      if (now < entry.freshUntil) return { answer: entry.answer, status: 'HIT' }
      if (now < entry.freshUntil + this.options.staleWhileRevalidateMs) {
        this.revalidate(key, load, policy)
        return { answer: entry.answer, status: 'STALE' }
      }
    }
    const usableStale = entry && now < entry.freshUntil + this.options.staleIfErrorMs ? entry : undefined
    let answer: UpstreamAnswer
    try {
      answer = await this.flight(key, load, policy)
    } catch (error) {
      if (usableStale) return { answer: usableStale.answer, status: 'STALE' }
      throw error
    }
    // An error status or an `errors` answer is a failure too: the last good answer beats it.
    if (usableStale && !policy.storable(answer)) return { answer: usableStale.answer, status: 'STALE' }
    return { answer, status: 'MISS' }
  }

  /** The stored answer of a key, fresh or within the stale-if-error window, without asking the upstream. */
  peek(key: string): UpstreamAnswer | undefined {
    const entry = this.lru.get(key)
    return entry && this.now() < entry.freshUntil + this.options.staleIfErrorMs ? entry.answer : undefined
  }

  /** Removes every entry, or those built from any of the given sections; returns how many went. */
  purge(sections?: readonly string[]): number {
    this.generation++
    if (!sections) {
      const count = this.lru.size
      this.lru.clear()
      return count
    }
    const wanted = new Set(sections)
    let count = 0
    for (const [key, entry] of this.lru.entries()) {
      if (entry.sections.some((section) => wanted.has(section))) {
        this.lru.delete(key)
        count++
      }
    }
    return count
  }

  private revalidate(key: string, load: () => Promise<UpstreamAnswer>, policy: CachePolicy): void {
    if (this.inflight.has(key)) return
    this.flight(key, load, policy).catch((error: unknown) => this.options.onRefreshError?.(key, error))
  }

  /** One upstream request per key at a time; everyone asking meanwhile shares its answer. */
  private flight(key: string, load: () => Promise<UpstreamAnswer>, policy: CachePolicy): Promise<UpstreamAnswer> {
    const running = this.inflight.get(key)
    if (running) return running
    const generation = this.generation
    const promise = load()
      .then((answer) => {
        if (generation === this.generation && policy.storable(answer)) {
          const maxStale = Math.max(this.options.staleWhileRevalidateMs, this.options.staleIfErrorMs)
          this.lru.set(
            key,
            { answer, freshUntil: this.now() + this.options.ttlMs, sections: policy.sections(answer) },
            { ttl: this.options.ttlMs + maxStale },
          )
        }
        return answer
      })
      .finally(() => this.inflight.delete(key))
    this.inflight.set(key, promise)
    return promise
  }
}
