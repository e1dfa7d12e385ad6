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
   * The same bytes encoded, each only once a client asked for that encoding
   * (`want`), off the event loop: until then a hit is served in the other one
   * if the client takes it, else by the full route, which compresses it as it
   * goes out (page-cache-hits.ts). A page nobody asks brotli of holds no brotli.
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
/**
 * What an entry costs beyond its strings and buffers (the entry objects of
 * the page and of the LRU, the buffers' own objects, the header lists the
 * hits make), counted towards PAGE_CACHE_MAX_BYTES with the bytes of its
 * body, variants, key, headers and tags.
 */
const ENTRY_OVERHEAD_BYTES = 512
/** What a string costs beyond its characters (V8's header, rounded), for each header name and value, tag and key. */
const STRING_OVERHEAD_BYTES = 16
/**
 * Variants encoded at once. Each encode (one page, one encoding) runs on
 * libuv's threadpool, so this is the number of pool threads the page cache
 * may hold: 2 of the 4 Node has by default, leaving the others to what
 * requests wait on there (static files, dns.lookup, crypto). At the 0.5 to
 * 1 ms a page took on the event loop, two threads keep up with 2,000 or more
 * first requests of an encoding a second.
 */
export const MAX_ENCODES_IN_FLIGHT = 2
/**
 * Variants asked for and waiting for an encode. Queued rather than dropped,
 * so that a burst of first requests (after a deploy or a purge of
 * everything) still gets its variants some milliseconds later; bounded, so
 * that requests arriving faster than the threads encode, for long, cost
 * neither memory nor an ever later encode: past the bound the variant is
 * not made now, and the next request for it asks again. 64 variants are
 * some 30 ms of work on two threads.
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
  /** Bounds on the encodes of variants (MAX_ENCODES_IN_FLIGHT, MAX_ENCODES_QUEUED unless a test says otherwise). */
  maxEncodesInFlight?: number
  maxEncodesQueued?: number
}

/** An encoding a stored page may hold a variant in (Accept-Encoding's names). */
export type Encoding = 'br' | 'gzip'

/** A variant asked for, waiting for (or in) its encode: made from this very body, attached only to a page that still has it. */
interface Encode {
  key: string
  body: Buffer
  encoding: Encoding
}

const gzipOffLoop = promisify(gzip)
const brotliOffLoop = promisify(brotliCompress)

/** One variant of a body, on libuv's threadpool. */
function encodeVariant(body: Buffer, encoding: Encoding): Promise<Buffer> {
  if (encoding === 'gzip') return gzipOffLoop(body, { level: GZIP_LEVEL })
  return brotliOffLoop(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: body.byteLength } })
}

/** Whether a page is big enough to be served compressed from the cache (smaller ones are served as they are). */
export function encodable(page: CachedPage): boolean {
  return page.body.byteLength >= MIN_ENCODED_BYTES
}

/** The bytes of a page's strings: its key, header names and values, and tags (one byte a character, as V8 keeps Latin-1 strings). */
function metaBytesOf(key: string, headers: Record<string, string>, tags: readonly string[]): number {
  let bytes = key.length + STRING_OVERHEAD_BYTES
  for (const name in headers) bytes += name.length + (headers[name] as string).length + 2 * STRING_OVERHEAD_BYTES
  for (const tag of tags) bytes += tag.length + STRING_OVERHEAD_BYTES
  return bytes
}

/** What an entry is counted as towards PAGE_CACHE_MAX_BYTES: its body, the variants it holds, its strings and the overhead of its objects. */
export function sizeOf(page: CachedPage, key: string): number {
  return page.body.byteLength + (page.gzip?.byteLength ?? 0) + (page.brotli?.byteLength ?? 0) + metaBytesOf(key, page.headers, page.tags) + ENTRY_OVERHEAD_BYTES
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
  /** The bodies with an encode of that encoding queued or in flight: a variant is asked of the threads once. */
  private readonly pending: Record<Encoding, WeakSet<Buffer>> = { br: new WeakSet(), gzip: new WeakSet() }
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
        sizeCalculation: (page, key) => sizeOf(page, key),
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

  /** The bytes the pages take as PAGE_CACHE_MAX_BYTES counts them: bodies, the variants made of them, their strings and each entry's overhead (sizeOf). */
  get bytes(): number {
    return this.lru === this.unlisted ? this.lru.calculatedSize : this.lru.calculatedSize + this.unlisted.calculatedSize
  }

  /** The segment a key's page is kept in. */
  private segmentOf(key: string): LRUCache<string, CachedPage> {
    return this.listed === undefined || this.listed(key) ? this.lru : this.unlisted
  }

  /** Variants being encoded now (at most maxEncodesInFlight). */
  get encodesInFlight(): number {
    return this.inFlight
  }

  /** Variants waiting for an encode (at most maxEncodesQueued). */
  get encodesQueued(): number {
    return this.queued.length
  }

  /** A key's page as stored, whatever its age, without touching its place in the LRU (tests, metrics). */
  peek(key: string): CachedPage | undefined {
    return this.segmentOf(key).peek(key)
  }

  /**
   * A client asked for a variant of a stored page that it does not hold:
   * it is made off the event loop and attached to the page, unless it is
   * already under way, the page is too small to encode, or the queue is full
   * (then the next request for it asks again).
   */
  want(key: string, page: CachedPage, encoding: Encoding): void {
    if ((encoding === 'br' ? page.brotli : page.gzip) !== undefined || !encodable(page)) return
    const pending = this.pending[encoding]
    if (pending.has(page.body)) return
    const encode: Encode = { key, body: page.body, encoding }
    if (this.inFlight < this.maxEncodesInFlight) {
      pending.add(page.body)
      void this.runEncode(encode)
    } else if (this.queued.length < this.maxEncodesQueued) {
      pending.add(page.body)
      this.queued.push(encode)
    }
  }

  /** Settles once no encode is in flight or queued: every variant asked for so far is attached, or never will be. */
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
      // The entry now: attaching a variant replaces the page object with a copy that carries the same claim.
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
   * Stores the page at once, as it is (`ageMs` old), without variants: each
   * is made off the event loop once a client asks for its encoding (`want`),
   * so that memory holds only what is asked for (encoding here cost each
   * miss about a millisecond of the event loop; encoding both for every page
   * held a brotli and a gzip copy of pages nobody asked them of).
   */
  store(ticket: number, key: string, statusCode: number, headers: Record<string, string>, body: Buffer, tags: readonly string[] = [], ageMs = 0): void {
    // A TTL of 0 to lru-cache would mean kept for ever.
    const keptMs = this.options.ttlMs + Math.max(this.options.staleIfErrorMs, this.options.staleWhileRevalidateMs ?? 0)
    const segment = this.segmentOf(key)
    if (ticket !== this.generation || body.byteLength > segment.maxSize / 4 || keptMs <= 0) return
    // A page another gateway rendered (the shared tier) is fresh for what is left of its TTL.
    const page: CachedPage = { statusCode, headers, body, etag: weakEtag(body), freshUntil: this.now() + this.options.ttlMs - Math.max(0, ageMs), tags }
    segment.set(key, page, { ttl: keptMs })
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
    // A variant is attached only to a page that still has the body it was made of (isCurrent): a soft purge keeps the bodies, and their encodes stay useful.
    if (!soft) this.dropQueuedEncodes()
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

  private async runEncode(encode: Encode): Promise<void> {
    this.inFlight++
    try {
      this.attachVariant(encode, await encodeVariant(encode.body, encode.encoding))
    } catch {
      // zlib failing on a buffer it was given whole: the page is served as it is.
    } finally {
      this.pending[encode.encoding].delete(encode.body)
      this.inFlight--
      this.startQueuedEncodes()
    }
  }

  /**
   * A variant goes with a page that still has the very body it was made
   * from: a page purged (hard), replaced, evicted or expired meanwhile is not
   * brought back, nor given another page's bytes.
   */
  private attachVariant(encode: Encode, variant: Buffer): void {
    const current = this.isCurrent(encode)
    if (!current) return
    // A new object, as lru-cache sizes an entry again only when its value changes; its TTL runs on from the first store.
    const page: CachedPage = encode.encoding === 'br' ? { ...current, brotli: variant } : { ...current, gzip: variant }
    this.segmentOf(encode.key).set(encode.key, page, { noUpdateTTL: true })
  }

  /** The stored page the encode was made for, if the key still holds it. */
  private isCurrent(encode: Encode): CachedPage | undefined {
    const page = this.segmentOf(encode.key).peek(encode.key)
    return page?.body === encode.body ? page : undefined
  }

  private startQueuedEncodes(): void {
    while (this.inFlight < this.maxEncodesInFlight && this.queued.length > 0) {
      const next = this.queued.shift() as Encode
      if (this.isCurrent(next)) void this.runEncode(next)
      else this.pending[next.encoding].delete(next.body)
    }
    if (this.isIdle()) this.wakeIdleWaiters()
  }

  private dropQueuedEncodes(): void {
    for (const encode of this.queued) this.pending[encode.encoding].delete(encode.body)
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
