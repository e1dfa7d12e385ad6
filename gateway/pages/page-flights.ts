import type { FastifyInstance } from 'fastify'
import type { CachedPage } from '../cache/page-cache.ts'
import type { WaitOutcome } from '../cache/render-flights.ts'
import type { SharedTier } from '../cache/shared-tier.ts'
import type { PageVisit } from './page-visit.ts'

/**
 * The single flight of a page's renders: one render per page key at a time
 * in this gateway (cache/render-flights.ts), and with the shared tier one
 * across gateways (the Redis page locks, cache/shared-tier.ts). A miss while
 * another renders the page waits for that render, within PAGE_RENDER_WAIT_MS
 * in all; waiting is no work, and is charged nothing.
 */
export class PageFlights {
  constructor(private readonly app: FastifyInstance) {}

  /** Whether a miss of this visit takes part: a page stored for everyone, not a preview; a background refresh leads its key's render too. */
  coalesces(visit: PageVisit): boolean {
    return this.app.config.cache.pageRenderWaitMs > 0 && visit.storable && (!visit.revalidating || visit.refresh)
  }

  /** Waits for the render of the visit's page under way here, until `until` (performance.now()); undefined when there is none to wait for. */
  wait(visit: PageVisit, until: number): Promise<WaitOutcome> | undefined {
    // A render already under way (started beside a redirect lookup) is not thrown away to wait for another.
    if (visit.rendering !== undefined || !this.coalesces(visit)) return undefined
    return this.app.renderFlights.wait(visit.cacheKey, until - performance.now())
  }

  /** This visit's render becomes the one other misses of its key wait on, unless one is under way already (false: it renders on its own). */
  lead(visit: PageVisit): boolean {
    if (visit.flight) return true
    const flight = this.app.renderFlights.lead(visit.cacheKey)
    if (!flight) return false
    visit.lead(flight)
    return true
  }

  /**
   * The visit leads its page's render here, and across gateways: the page
   * another gateway stored, or is rendering (waited for until `until`),
   * stored here first so that this gateway's waiters find it; else this
   * gateway takes the lock and renders the page for all (undefined).
   * Without the shared tier that is known at once, without a promise.
   */
  claim(visit: PageVisit, until: number): Promise<CachedPage | undefined> | undefined {
    if (!this.coalesces(visit) || !this.lead(visit)) return undefined
    const tier = this.app.sharedCache
    if (!tier?.sharesPages) return undefined
    return this.claimShared(visit, tier, until)
  }

  private async claimShared(visit: PageVisit, tier: SharedTier, until: number): Promise<CachedPage | undefined> {
    const { cacheKey } = visit
    const claim = await tier.claimPage(cacheKey)
    if (claim.kind === 'locked') {
      visit.holdSharedLock(claim.lock)
      return undefined
    }
    // A render under way already (started beside a redirect lookup) goes on rather than wait.
    const page = claim.kind === 'stored' ? claim.page : claim.kind === 'held' && visit.rendering === undefined ? await tier.waitForPage(cacheKey, until - performance.now()) : undefined
    if (!page) return undefined
    const { pageCache } = this.app
    pageCache.store(visit.ticket, cacheKey, page.statusCode, page.headers, page.body, page.tags, Date.now() - page.storedAt)
    const stored = pageCache.get(cacheKey)
    // A purge here since the visit began keeps the page out: rendered again.
    if (!stored) return undefined
    visit.abandonRender('over')
    return stored
  }
}
