import type { FastifyBaseLogger } from 'fastify'

export interface SharedTierOptions {
  url: URL
  commandTimeoutMs: number
  lockMs: number
  keyPrefix: string
  /** How long Redis keeps an entry: the TTL plus the longer of the stale windows. */
  entryLifetimeMs: number
  /**
   * Whole pages are shared too (one render per page across gateways), kept
   * while fresh (PAGE_CACHE_TTL_MS) and signed with this secret
   * (RENDER_SECRET), since Redis holds what anyone wrote there and a page is
   * served as it is. Without a secret or a TTL, pages are not shared.
   */
  pages?: { secret: string | undefined; lifetimeMs: number }
  log: FastifyBaseLogger
  /** Another gateway purged (undefined: everything, or purges may have been missed). */
  onPurge: (tags: readonly string[] | undefined, soft?: boolean) => void
  onLookup?: (result: 'hit' | 'miss' | 'error') => void
  onCommandError?: () => void
}

export type PurgeFanOut = 'ok' | 'pending'

/** What a purge did in Redis: told every gateway ('ok', and how many entries it dropped there) or is still to ('pending'). */
export type SharedPurge = { fanOut: 'ok'; dropped: number } | { fanOut: 'pending'; dropped?: undefined }

/** What the tier tells those who watch it (tests, mostly): each event is a change of state, never a timer. */
export interface SharedTierEvents {
  /** Both connections are up again ('up') or one was lost ('down'): what `up` answers changed. */
  up: []
  down: []
  lookup: [result: 'hit' | 'miss' | 'error']
  /** A command or a connection failed; the tier goes on without Redis. */
  failure: [error: Error]
  /** A purge from another gateway (undefined: everything) was applied to this gateway's memory. */
  purge: [tags: readonly string[] | undefined]
  /** The subscription is back and the purge epoch was read: memory was emptied (purges may have been missed) or kept. */
  caughtUp: [memory: 'emptied' | 'kept']
  /** This gateway holds the lock of a key and asks the CMS. */
  locked: [key: string]
  /** Another gateway holds the lock of a key: this one waits for its answer. */
  waiting: [key: string]
  /** This gateway, still asking the CMS, extended the lease of its lock on a key. */
  renewed: [key: string]
  /** An entry in Redis failed the checks a CMS answer passes: dropped, and the key is loaded as on a miss. */
  refused: [key: string, reason: string]
  /** This gateway renders a page the others wait for (`locked`), or waits for another's render of it (`waiting`). */
  pageLocked: [key: string]
  pageWaiting: [key: string]
  /** A wait for another gateway's page is over: the page came, its lock went without one (given up, or lapsed), the wait's bound passed, or Redis failed. */
  pageWaited: [key: string, outcome: 'stored' | 'released' | 'timeout' | 'unavailable']
}

/** A whole rendered page as the gateways share it. */
export interface SharedPage {
  statusCode: number
  headers: Record<string, string>
  body: Buffer
  tags: readonly string[]
  /** When it was stored (this gateway's clock at most): its age counts against its TTL in every gateway. */
  storedAt: number
}

/** The render of a page this gateway holds the lock of: store its page (if no purge came since the claim), or give the lock up. */
export interface PageLock {
  store(page: SharedPage): void
  release(): void
}

/**
 * A page-cache miss asked Redis: the page another gateway stored; the lock,
 * so this gateway renders it for all; another gateway renders it (wait with
 * `waitForPage`); or no Redis to ask (render as without one).
 */
export type PageClaim = { kind: 'stored'; page: SharedPage } | { kind: 'locked'; lock: PageLock } | { kind: 'held' } | { kind: 'unavailable' }
