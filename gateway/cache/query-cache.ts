import { LRUCache } from 'lru-cache'
import type { UpstreamAnswer } from '../craft/client.ts'
import { entryTag } from './cache-tags.ts'

export type CacheStatus = 'HIT' | 'MISS' | 'STALE' | 'BYPASS'
/** Why the upstream is asked: a lookup that found nothing usable, or the background refresh of a stored answer. */
export type LoadPurpose = 'miss' | 'refresh'
/** Asks the upstream for a key's answer; told why, so that a refresh is charged to no one. */
export type Load = (purpose: LoadPurpose) => Promise<UpstreamAnswer>

export interface QueryCacheOptions {
  maxEntries: number
  maxBytes: number
  ttlMs: number
  staleWhileRevalidateMs: number
  staleIfErrorMs: number
  now?: () => number
  /** Told about a failed background refresh; the stale entry stays. */
  onRefreshError?: (key: string, error: unknown) => void
  /** A tier shared by several gateways (Redis), asked on a miss in memory before the upstream. */
  shared?: SharedStore
}

/** One upstream request under way for a key, and how many lookups wait on its answer. */
interface Flight {
  answer: Promise<CacheLookup>
  waiting: number
}

interface CachedAnswer {
  answer: UpstreamAnswer
  freshUntil: number
  tags: readonly string[]
  /** Soft-purged: asked again before it is used, kept only to stand in while the CMS fails. */
  purged?: boolean
}

export interface CacheLookup {
  answer: UpstreamAnswer
  status: CacheStatus
  /** What the answer was built from: section handles and `entry:<id>`, for purging and for the CDN. */
  tags: readonly string[]
  /** The answer's key in the pages' cache, when it is from there or stored there (ContentService.run). */
  key?: string
}

export interface CachePolicy {
  /** Whether this answer may be stored. */
  storable: (answer: UpstreamAnswer) => boolean
  /** Sections the answer was built from, for purging by section. */
  sections: (answer: UpstreamAnswer) => readonly string[]
  /** Ids of the entries in the answer, for purging by entry. */
  entries?: (answer: UpstreamAnswer) => readonly string[]
  /** An answer read from the shared tier, made what one from the CMS would be (its rich text cleaned): Redis holds whatever was written there. */
  adopt?: (answer: UpstreamAnswer) => UpstreamAnswer
}

/** An entry as the shared tier keeps it: `fetchedAt` decides freshness, so every gateway ages it alike. */
export interface SharedEntry {
  answer: UpstreamAnswer
  fetchedAt: number
  tags: readonly string[]
}

export interface LoadedEntry extends SharedEntry {
  storable: boolean
}

/** What the shared tier needs to know to use an entry it holds. */
export interface SharedEntryRules {
  isFresh: (fetchedAt: number) => boolean
  /** Whether an answer is one this cache stores (CachePolicy.storable): an entry that is not came from elsewhere and is refused. */
  accepts: (answer: UpstreamAnswer) => boolean
}

export interface SharedStore {
  /** The entry of a key if it passes `accepts` and its own checks; undefined when there is none, it is refused or the tier fails. */
  read(key: string, accepts: (answer: UpstreamAnswer) => boolean): Promise<SharedEntry | undefined>
  /** Loads under a lock shared by all gateways, or takes what the gateway holding the lock got. */
  loadOnce(key: string, rules: SharedEntryRules, load: () => Promise<LoadedEntry>): Promise<{ entry: LoadedEntry; fromShared: boolean }>
}

/**
 * A keyed cache of upstream answers with the behaviour of an edge cache:
 * bounded by entries and bytes, single flight per key, stale-while-revalidate
 * with one background refresh per key, and stale-if-error.
 */
export class QueryCache {
  private readonly lru: LRUCache<string, CachedAnswer>
  private readonly inflight = new Map<string, Flight>()
  private readonly options: QueryCacheOptions
  private readonly now: () => number
  private readonly maxStaleMs: number
  /** Bumped by every purge, so a flight that started before it does not store old content. */
  private generation = 0

  constructor(options: QueryCacheOptions) {
    this.options = options
    this.now = options.now ?? Date.now
    this.maxStaleMs = Math.max(options.staleWhileRevalidateMs, options.staleIfErrorMs)
    this.lru = new LRUCache<string, CachedAnswer>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      sizeCalculation: (entry) => Math.max(1, entry.answer.raw.byteLength + 64),
      // lru-cache's default keeps its clock's reading for 1 ms with a timer that clears it: under load a timer was
      // made for most fresh pages (the profile's `insert` under `holdsFresh`). Reading the clock each time is cheaper.
      ttlResolution: 0,
    })
  }

  get size(): number {
    return this.lru.size
  }

  get bytes(): number {
    return this.lru.calculatedSize
  }

  /** How many lookups wait on the upstream request of a key now (0: none under way); tests wait on it rather than on time. */
  waitingOn(key: string): number {
    return this.inflight.get(key)?.waiting ?? 0
  }

  async fetch(key: string, load: Load, policy: CachePolicy): Promise<CacheLookup> {
    const entry = this.lru.get(key)
    const now = this.now()
    if (entry) {
      if (now < entry.freshUntil && !entry.purged) return { answer: entry.answer, status: 'HIT', tags: entry.tags }
      if (now < entry.freshUntil + this.options.staleWhileRevalidateMs && !entry.purged) {
        this.revalidate(key, load, policy)
        return { answer: entry.answer, status: 'STALE', tags: entry.tags }
      }
    }
    const usableStale = entry && now < entry.freshUntil + this.options.staleIfErrorMs ? entry : undefined
    let result: CacheLookup
    try {
      result = await this.flight(key, load, policy, 'miss')
    } catch (error) {
      if (usableStale) return { answer: usableStale.answer, status: 'STALE', tags: usableStale.tags }
      throw error
    }
    // An error status or an `errors` answer is a failure too: the last good answer beats it.
    if (usableStale && !policy.storable(result.answer)) return { answer: usableStale.answer, status: 'STALE', tags: usableStale.tags }
    // A stale entry from the shared tier: served now, refreshed in the background like one from memory.
    if (result.status === 'STALE') this.revalidate(key, load, policy)
    return result
  }

  /** The stored answer of a key, fresh or within the stale-if-error window, without asking the upstream. */
  peek(key: string): UpstreamAnswer | undefined {
    const entry = this.lru.get(key)
    return entry && this.now() < entry.freshUntil + this.options.staleIfErrorMs ? entry.answer : undefined
  }

  /** Whether a key holds this very answer, fresh; nothing is asked, stored or made. */
  holdsFresh(key: string, answer: unknown): boolean {
    const entry = this.lru.get(key)
    return entry !== undefined && entry.answer === answer && this.now() < entry.freshUntil && !entry.purged
  }

  /** The stored answer of a key while it is fresh, as a hit; nothing is asked or stored. */
  fresh(key: string): CacheLookup | undefined {
    const entry = this.lru.get(key)
    return entry && this.now() < entry.freshUntil && !entry.purged ? { answer: entry.answer, status: 'HIT', tags: entry.tags, key } : undefined
  }

  /**
   * Removes every entry, or those built from any of the given tags
   * (sections, `entry:<id>`); returns how many went. A soft purge marks
   * them instead: the next lookup asks the CMS (a page rendered again after
   * a soft purge shows the new content), and the old answer stands in only
   * while the CMS fails.
   */
  purge(tags?: readonly string[], soft = false): number {
    this.generation++
    if (soft) {
      const wanted = tags ? new Set(tags) : undefined
      let marked = 0
      for (const entry of this.lru.values()) {
        if (!entry.purged && (!wanted || entry.tags.some((tag) => wanted.has(tag)))) {
          entry.purged = true
          marked++
        }
      }
      return marked
    }
    if (!tags) {
      const count = this.lru.size
      this.lru.clear()
      return count
    }
    const wanted = new Set(tags)
    let count = 0
    for (const [key, entry] of this.lru.entries()) {
      if (entry.tags.some((tag) => wanted.has(tag))) {
        this.lru.delete(key)
        count++
      }
    }
    return count
  }

  private revalidate(key: string, load: Load, policy: CachePolicy): void {
    if (this.inflight.has(key)) return
    this.flight(key, load, policy, 'refresh').catch((error: unknown) => this.options.onRefreshError?.(key, error))
  }

  /** One upstream request per key at a time; everyone asking meanwhile shares its answer. */
  private flight(key: string, load: Load, policy: CachePolicy, purpose: LoadPurpose): Promise<CacheLookup> {
    const running = this.inflight.get(key)
    if (running) {
      if (purpose === 'miss') running.waiting++
      return running.answer
    }
    const generation = this.generation
    const loaded = async (): Promise<LoadedEntry> => {
      const answer = await load(purpose)
      const storable = policy.storable(answer)
      return { answer, fetchedAt: this.now(), tags: storable ? tagsOf(answer, policy) : [], storable }
    }
    const promise = (this.options.shared ? this.throughShared(this.options.shared, key, loaded, policy, purpose, generation) : this.fromUpstream(key, loaded, generation)).finally(() =>
      this.inflight.delete(key),
    )
    this.inflight.set(key, { answer: promise, waiting: purpose === 'miss' ? 1 : 0 })
    return promise
  }

  private async fromUpstream(key: string, loaded: () => Promise<LoadedEntry>, generation: number): Promise<CacheLookup> {
    const entry = await loaded()
    if (entry.storable) this.remember(key, entry, generation)
    return { answer: entry.answer, status: 'MISS', tags: entry.tags }
  }

  /**
   * Memory missed (or needs a refresh): the shared tier's entry when it is
   * fresh (or stale within the window, for a miss), else one upstream request
   * among all gateways, with the shared entry standing in if that fails.
   */
  private async throughShared(
    shared: SharedStore,
    key: string,
    loaded: () => Promise<LoadedEntry>,
    policy: CachePolicy,
    purpose: LoadPurpose,
    generation: number,
  ): Promise<CacheLookup> {
    // Redis holds whatever was written there: an entry counts only if it is an answer this cache would have stored.
    const accepts = policy.storable
    const adopted = (entry: SharedEntry): SharedEntry => (policy.adopt ? { ...entry, answer: policy.adopt(entry.answer) } : entry)
    const read = await shared.read(key, accepts)
    const found = read && adopted(read)
    const now = this.now()
    const freshUntil = found ? found.fetchedAt + this.options.ttlMs : 0
    if (found && (now < freshUntil || (purpose === 'miss' && now < freshUntil + this.options.staleWhileRevalidateMs))) {
      this.remember(key, found, generation)
      return { answer: found.answer, status: now < freshUntil ? 'HIT' : 'STALE', tags: found.tags }
    }
    const fallback = found && now < freshUntil + this.options.staleIfErrorMs ? found : undefined
    let result: { entry: LoadedEntry; fromShared: boolean }
    try {
      result = await shared.loadOnce(key, { isFresh: (fetchedAt) => this.now() < fetchedAt + this.options.ttlMs, accepts }, loaded)
    } catch (error) {
      if (fallback) return { answer: fallback.answer, status: 'STALE', tags: fallback.tags }
      throw error
    }
    const { fromShared } = result
    const entry = fromShared ? { ...result.entry, ...adopted(result.entry) } : result.entry
    if (!entry.storable && fallback) return { answer: fallback.answer, status: 'STALE', tags: fallback.tags }
    if (entry.storable) this.remember(key, entry, generation)
    return { answer: entry.answer, status: fromShared && entry.storable ? 'HIT' : 'MISS', tags: entry.tags }
  }

  private remember(key: string, entry: SharedEntry, generation: number): void {
    if (generation !== this.generation) return
    const freshUntil = entry.fetchedAt + this.options.ttlMs
    const ttl = freshUntil + this.maxStaleMs - this.now()
    if (ttl > 0) this.lru.set(key, { answer: entry.answer, freshUntil, tags: entry.tags }, { ttl })
  }
}

function tagsOf(answer: UpstreamAnswer, policy: CachePolicy): string[] {
  const tags = new Set(policy.sections(answer))
  for (const id of policy.entries?.(answer) ?? []) tags.add(entryTag(id))
  return [...tags]
}
