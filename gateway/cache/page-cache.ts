import { promisify } from 'node:util'
import { brotliCompress, gzip, constants as zlib } from 'node:zlib'
import { LRUCache } from 'lru-cache'
import { PAGE_REVALIDATION_MS } from '../../shared/constants.ts'
import { weakEtag } from '../http/http-caching.ts'
import { touchesEveryPage } from './cache-tags.ts'

export interface CachedPage {
  statusCode: number
  headers: Record<string, string>
  body: Buffer
  /**
   * The same bytes encoded once, off the event loop, some time after the page
   * was stored: until then (or for good, when the encodes were too many) a hit
   * serves the body as it is (page-cache-hits.ts), never compresses it.
   */
  gzip?: Buffer
  brotli?: Buffer
  etag: string
  freshUntil: number
  /** Past its TTL: the claim of the request rendering it again (see `claimRevalidation`); meanwhile the others get this page. */
  revalidation?: { since: number }
  /** Marked stale by a soft purge (refreshablePage). */
  purged?: boolean
  /** What the page was built from (sections, `entry:<id>`), so that a purge of any of them drops it. */
  tags: readonly string[]
}

/** Compressing pays off only above this size (as for the compression of live answers). */
const MIN_ENCODED_BYTES = 1024
/** Encoded once per stored page: brotli 5 is about 1 ms for a page and within 1 % of quality 9 (12 ms). */
const BROTLI_QUALITY = 5
/** Gzip 6 gives the site's pages the bytes of level 9 (7,447 against 7,441 on the 27.9 KB home page) for less time. */
const GZIP_LEVEL = 6
/** What an entry costs beyond its bytes (key, object, headers), counted towards PAGE_CACHE_MAX_BYTES. */
const ENTRY_OVERHEAD_BYTES = 256
/**
 * Pages encoded at once. Each encode runs its gzip and then its brotli on
 * libuv's threadpool, so this is the number of pool threads the page cache
 * may hold: 2 of the 4 Node has by default, leaving the others to what
 * requests wait on there (static files, dns.lookup, crypto). At the 0.5 to
 * 1 ms a page took on the event loop, two threads keep up with 2,000 or more
 * misses a second.
 */
export const MAX_ENCODES_IN_FLIGHT = 2
/**
 * Stored pages waiting for an encode. Queued rather than dropped, so that a
 * burst of misses (after a deploy or a purge of everything) still gets its
 * variants some milliseconds later, instead of serving those pages
 * uncompressed for their whole TTL; bounded, so that misses arriving faster
 * than the threads encode, for long, cost neither memory nor an ever later
 * encode: past the bound a page is stored without variants, and its hits
 * serve the body as it is. 64 pages are some 30 ms of work on two threads.
 */
export const MAX_ENCODES_QUEUED = 64

/** The share of PAGE_CACHE_MAX_ENTRIES and PAGE_CACHE_MAX_BYTES kept for pages outside the sitemap (aliases, anything not indexed). */
export const UNLISTED_SHARE = 1 / 8

export interface PageCacheOptions {
  maxEntries: number
  maxBytes: number
  /**
   * The keys of the pages that matter (the sitemap's, and the stored error
   * page): kept in a segment of their own, which no other key can evict.
   * The rest share UNLISTED_SHARE of the bounds. Without it, one segment.
   */
  listed?: (key: string) => boolean
  ttlMs: number
  /** How long past its TTL a page is kept to stand in while no renderer answers. */
  staleIfErrorMs: number
  /**
   * How long past its TTL a page is still served (X-Cache: STALE) while one
   * request renders it again (CACHE_SWR_MS, as the pages' Cache-Control
   * tells shared caches); 0: never, every request past the TTL renders.
   */
  staleWhileRevalidateMs?: number
  /** A clock of its own (tests): then both freshness and how long the lru keeps a page follow it. */
  now?: () => number
  /** Bounds on the encodes of stored pages (MAX_ENCODES_IN_FLIGHT, MAX_ENCODES_QUEUED unless a test says otherwise). */
  maxEncodesInFlight?: number
  maxEncodesQueued?: number
}

interface Variants {
  gzip: Buffer
  brotli: Buffer
}

/** A stored page waiting for (or in) its encode, with the purge generation it was stored in. */
interface Encode {
  key: string
  page: CachedPage
  generation: number
}

const gzipOffLoop = promisify(gzip)
const brotliOffLoop = promisify(brotliCompress)

/** Both variants of a body, on libuv's threadpool: one after the other, so an encode holds one thread at a time. */
async function encodeVariants(body: Buffer): Promise<Variants> {
  const gzipped = await gzipOffLoop(body, { level: GZIP_LEVEL })
  const brotli = await brotliOffLoop(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: body.byteLength } })
  return { gzip: gzipped, brotli }
}

function sizeOf(page: CachedPage): number {
  return page.body.byteLength + (page.gzip?.byteLength ?? 0) + (page.brotli?.byteLength ?? 0) + ENTRY_OVERHEAD_BYTES
}

/**
 * Whole pages by path and the query parameters their route reads: only
 * complete answers rendered without a preview token (200, and the one 404
 * page). Bounded by entries and bytes like the query cache, in two
 * segments: the sitemap's pages, and the rest (see `listed`), so that
 * however many other keys come, the pages that matter stay to stand in.
 */
export class PageCache {
  /** The sitemap's pages (all pages without `listed`). */
  private readonly lru: LRUCache<string, CachedPage>
  /** Every other page, bounded by UNLISTED_SHARE of the bounds; the same LRU as `lru` without `listed`. */
  private readonly unlisted: LRUCache<string, CachedPage>
  private readonly listed: ((key: string) => boolean) | undefined
  private readonly now: () => number
  private generation = 0
  private readonly maxEncodesInFlight: number
  private readonly maxEncodesQueued: number
  private readonly queued: Encode[] = []
  private inFlight = 0
  private idleWaiters: (() => void)[] = []

  constructor(private readonly options: PageCacheOptions) {
    this.now = options.now ?? Date.now
    this.maxEncodesInFlight = options.maxEncodesInFlight ?? MAX_ENCODES_IN_FLIGHT
    this.maxEncodesQueued = options.maxEncodesQueued ?? MAX_ENCODES_QUEUED
    this.listed = options.listed
    const segment = (maxEntries: number, maxBytes: number): LRUCache<string, CachedPage> =>
      new LRUCache<string, CachedPage>({
        max: Math.max(1, Math.floor(maxEntries)),
        maxSize: Math.max(1, Math.floor(maxBytes)),
        sizeCalculation: sizeOf,
        // lru-cache keeps its clock's reading for ttlResolution ms with a timer that clears it, a timer made on
        // every lookup after the last one fired; reading the clock every time is cheaper (and a test's clock works).
        ttlResolution: 0,
        ...(options.now ? { perf: { now: options.now } } : {}),
      })
    if (this.listed) {
      const unlistedEntries = Math.max(1, Math.floor(options.maxEntries * UNLISTED_SHARE))
      const unlistedBytes = Math.floor(options.maxBytes * UNLISTED_SHARE)
      this.lru = segment(Math.max(1, options.maxEntries - unlistedEntries), options.maxBytes - unlistedBytes)
      this.unlisted = segment(unlistedEntries, unlistedBytes)
    } else {
      this.lru = segment(options.maxEntries, options.maxBytes)
      this.unlisted = this.lru
    }
  }

  get size(): number {
    return this.lru === this.unlisted ? this.lru.size : this.lru.size + this.unlisted.size
  }

  /** The bytes the pages take as PAGE_CACHE_MAX_BYTES counts them: bodies, their variants once made, and each entry's overhead. */
  get bytes(): number {
    return this.lru === this.unlisted ? this.lru.calculatedSize : this.lru.calculatedSize + this.unlisted.calculatedSize
  }

  /** The segment a key's page is kept in. */
  private segmentOf(key: string): LRUCache<string, CachedPage> {
    return this.listed === undefined || this.listed(key) ? this.lru : this.unlisted
  }

  /** Stored pages being encoded now (at most maxEncodesInFlight). */
  get encodesInFlight(): number {
    return this.inFlight
  }

  /** Stored pages waiting for an encode (at most maxEncodesQueued). */
  get encodesQueued(): number {
    return this.queued.length
  }

  /** Settles once no encode is in flight or queued: every page stored so far has its variants, or never will. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  /**
   * The page of a key while it is fresh, or past its TTL while another
   * request renders it again (within the stale-while-revalidate window and
   * PAGE_REVALIDATION_MS of that render's start): a page that expires under
   * load is rendered once, not once for every request that came meanwhile.
   */
  get(key: string): CachedPage | undefined {
    // The sitemap's segment first: a hit on one of its pages costs one lookup, and no `listed` call.
    const page = this.lru.get(key) ?? (this.unlisted === this.lru ? undefined : this.unlisted.get(key))
    if (!page) return undefined
    const now = this.now()
    if (now < page.freshUntil) return page
    const claim = page.revalidation
    if (claim !== undefined && now - claim.since < PAGE_REVALIDATION_MS && now - page.freshUntil < (this.options.staleWhileRevalidateMs ?? 0)) return page
    return undefined
  }

  /** Whether a page `get` gave is past its TTL (served while it is rendered again). */
  isStale(page: CachedPage): boolean {
    return this.now() >= page.freshUntil
  }

  /**
   * Called on a miss by the request that will render the page: when a page
   * past its TTL (within the window) is there, this request now renders it
   * again, and until it is stored or the returned release is called (or
   * PAGE_REVALIDATION_MS passed) the others get the stale page. The release
   * ends this claim only: after a lapse another request's claim stands.
   * Undefined when there is nothing to claim.
   */
  claimRevalidation(key: string): (() => void) | undefined {
    const segment = this.segmentOf(key)
    const page = segment.get(key)
    if (!page) return undefined
    const now = this.now()
    if (now - page.freshUntil >= (this.options.staleWhileRevalidateMs ?? 0)) return undefined
    const claim = { since: now }
    page.revalidation = claim
    return () => {
      // The entry now: attaching its variants replaces the page object with a copy that carries the same claim.
      const current = segment.peek(key)
      if (current?.revalidation === claim) current.revalidation = undefined
    }
  }

  /**
   * A key's page past its TTL, within the stale-while-revalidate window, to
   * serve at once while a render in the background refreshes it: one a soft
   * purge marked, or one that expired (with a TTL of 0 every request renders,
   * as it asks). Nothing is claimed.
   */
  refreshablePage(key: string): CachedPage | undefined {
    const page = this.segmentOf(key).peek(key)
    if (!page || (!page.purged && this.options.ttlMs <= 0)) return undefined
    const age = this.now() - page.freshUntil
    return age >= 0 && age < (this.options.staleWhileRevalidateMs ?? 0) ? page : undefined
  }

  /** Drops a key's page (the path now redirects, or no longer renders as a page). */
  drop(key: string): void {
    this.segmentOf(key).delete(key)
  }

  /** The page of a key, fresh or past its TTL within the stale-if-error window: for when no renderer can make it again. */
  stale(key: string): CachedPage | undefined {
    const page = this.segmentOf(key).get(key)
    // Kept for the longer of the two windows: this one may be the shorter.
    return page && this.now() < page.freshUntil + this.options.staleIfErrorMs ? page : undefined
  }

  /** A token for `store`: a purge in between makes the store a no-op. */
  ticket(): number {
    return this.generation
  }

  /**
   * Stores the page at once, as it is (`ageMs` old); its gzip and brotli variants follow
   * when encoded off the event loop (encoding here cost each miss about a
   * millisecond of the event loop).
   */
  store(ticket: number, key: string, statusCode: number, headers: Record<string, string>, body: Buffer, tags: readonly string[] = [], ageMs = 0): void {
    // A TTL of 0 to lru-cache would mean kept for ever.
    const keptMs = this.options.ttlMs + Math.max(this.options.staleIfErrorMs, this.options.staleWhileRevalidateMs ?? 0)
    const segment = this.segmentOf(key)
    if (ticket !== this.generation || body.byteLength > segment.maxSize / 4 || keptMs <= 0) return
    // A page another gateway rendered (the shared tier) is fresh for what is left of its TTL.
    const page: CachedPage = { statusCode, headers, body, etag: weakEtag(body), freshUntil: this.now() + this.options.ttlMs - Math.max(0, ageMs), tags }
    segment.set(key, page, { ttl: keptMs })
    if (body.byteLength >= MIN_ENCODED_BYTES) this.encodeLater({ key, page, generation: this.generation })
  }

  clear(): void {
    this.generation++
    this.lru.clear()
    this.unlisted.clear()
    this.dropQueuedEncodes()
  }

  /**
   * Drops every page, or those built from any of the tags; a page stored
   * without tags could show anything and goes too. Returns how many went.
   * A soft purge drops none: it marks them past their TTL, so that each is
   * rendered again by the next request as an expired page is, the others
   * getting the stored page meanwhile (X-Cache: STALE), and it stands in
   * while no renderer answers. Returns how many it marked.
   */
  purge(tags?: readonly string[], soft = false): number {
    const before = this.size
    if (!soft && (!tags || touchesEveryPage(tags))) {
      this.clear()
      return before
    }
    this.generation++
    // Encodes begun before a purge never attach their variants (see isCurrent): queued ones need not run.
    this.dropQueuedEncodes()
    const wanted = tags && !touchesEveryPage(tags) ? new Set(tags) : undefined
    const now = this.now()
    let marked = 0
    for (const segment of this.lru === this.unlisted ? [this.lru] : [this.lru, this.unlisted]) {
      for (const [key, page] of segment.entries()) {
        if (wanted && page.tags.length > 0 && !page.tags.some((tag) => wanted.has(tag))) continue
        if (!soft) segment.delete(key)
        else if (page.freshUntil > now || !page.purged) {
          page.freshUntil = Math.min(page.freshUntil, now)
          page.purged = true
          marked++
        }
      }
    }
    return soft ? marked : before - this.size
  }

  /** Starts the encode if a thread is free, queues it if the queue has room; else the page keeps no variants. */
  private encodeLater(encode: Encode): void {
    if (this.inFlight < this.maxEncodesInFlight) void this.runEncode(encode)
    else if (this.queued.length < this.maxEncodesQueued) this.queued.push(encode)
  }

  private async runEncode(encode: Encode): Promise<void> {
    this.inFlight++
    try {
      this.attachVariants(encode, await encodeVariants(encode.page.body))
    } catch {
      // zlib failing on a buffer it was given whole: the page is served as it is.
    } finally {
      this.inFlight--
      this.startQueuedEncodes()
    }
  }

  /**
   * The variants go with the very page they were made from, in the
   * generation it was stored in: a page purged, replaced, evicted or expired
   * meanwhile is not brought back, nor given another page's bytes.
   */
  private attachVariants(encode: Encode, variants: Variants): void {
    if (!this.isCurrent(encode)) return
    // A new object, as lru-cache sizes an entry again only when its value changes; its TTL runs on from the first store.
    this.segmentOf(encode.key).set(encode.key, { ...encode.page, ...variants }, { noUpdateTTL: true })
  }

  private isCurrent(encode: Encode): boolean {
    return encode.generation === this.generation && this.segmentOf(encode.key).peek(encode.key) === encode.page
  }

  private startQueuedEncodes(): void {
    while (this.inFlight < this.maxEncodesInFlight && this.queued.length > 0) {
      const next = this.queued.shift() as Encode
      if (this.isCurrent(next)) void this.runEncode(next)
    }
    if (this.isIdle()) this.wakeIdleWaiters()
  }

  private dropQueuedEncodes(): void {
    this.queued.length = 0
    if (this.isIdle()) this.wakeIdleWaiters()
  }

  private isIdle(): boolean {
    return this.inFlight === 0 && this.queued.length === 0
  }

  private wakeIdleWaiters(): void {
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const wake of waiters) wake()
  }
}
