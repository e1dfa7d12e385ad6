import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { buffer } from 'node:stream/consumers'
import { HELMET_HEADERS } from '../plugins/external/helmet.ts'
import type { ResolvedToken } from '../preview/tokens.ts'
import { type RenderResponse, discard } from '../renderers/renderer-pool.ts'
import { knownMissing } from './not-found-stage.ts'
import type { PageFlights } from './page-flights.ts'
import type { PageStore } from './page-store.ts'
import { PageVisit, type VisitOrigin } from './page-visit.ts'
import type { RedirectStage } from './redirect-stage.ts'
import type { RenderStage } from './render-stage.ts'

/** The stages a refresh goes through, as a visitor's miss does (routes/pages.ts), without answering anyone. */
export interface RefreshStages {
  redirects: RedirectStage
  flights: PageFlights
  renders: RenderStage
  store: PageStore
}

/**
 * The refresh stage: a page past its TTL or marked stale by a soft purge is
 * served at once, and rendered again here in the background, by a direct
 * call of the same stages a visitor's miss goes through, so that no visitor
 * waits for a render a purge caused. One per page at a time: the page's
 * revalidation claim keeps the others on the stored page until it is stored
 * again. At most PAGE_REFRESH_CONCURRENCY at once, PAGE_REFRESH_QUEUE more
 * waiting (cache/page-refreshes.ts); past that the page stays stale, and its
 * next request asks again. Its render is stored as a visitor's miss is: in
 * this gateway and, with the shared tier, in Redis. No client pays for it.
 */
export class PageRefresh {
  constructor(
    private readonly app: FastifyInstance,
    private readonly stages: RefreshStages,
  ) {}

  /** Whether the visit's stale page is being refreshed now (by this visit's request, or an earlier one): then it answers with the stale page. */
  refreshInBackground(visit: PageVisit): boolean {
    const { pageRefreshes, pageCache } = this.app
    if (pageRefreshes.has(visit.cacheKey)) return true
    const release = pageCache.claimRevalidation(visit.cacheKey)
    if (!release) return false
    // A page a purge marked shows changed content: its refresh goes ahead of the pages that only expired.
    const reason = pageCache.peek(visit.cacheKey)?.purged ? 'changed' : 'expired'
    const scheduled = pageRefreshes.schedule(visit.cacheKey, () => this.run(visit, release), reason, release)
    if (scheduled === 'refused' || scheduled === 'running') release()
    return true
  }

  private async run(of: PageVisit, release: () => void): Promise<void> {
    const ended: (() => void)[] = []
    const id = randomUUID()
    const log = of.origin.log.child({ refresh: id })
    const origin: VisitOrigin = { id, log, address: of.origin.address, client: of.origin.client, userAgent: undefined, livePreview: false, onEnd: (done) => ended.push(done) }
    const context: ResolvedToken = { token: this.app.config.craftToken, preview: false, source: 'site', cookie: 'none', malformed: false, requestId: id }
    const visit = new PageVisit(origin, { url: of.url, context, useCache: true, storable: true, ticket: this.app.pageCache.ticket(), refresh: true })
    try {
      const failure = await this.refresh(visit)
      if (failure) log.warn({ err: failure, path: of.origin.address }, 'refresh of a stale page failed; it stays stale')
    } catch (error) {
      log.warn({ err: error, path: of.origin.address }, 'refresh of a stale page failed; it stays stale')
    } finally {
      release()
      for (const done of ended) done()
    }
  }

  /** Renders the visit's page again and stores it; what failed, if it did (the page then stays stale). */
  private async refresh(visit: PageVisit): Promise<unknown> {
    const { stages } = this
    const { pageCache } = this.app
    // The path redirects now (its stored page dropped), or its page is known to be gone: nothing to render.
    if (await stages.redirects.redirection(visit)) return undefined
    if (knownMissing(this.app, visit)) {
      pageCache.drop(visit.cacheKey)
      return undefined
    }
    const until = performance.now() + this.app.config.cache.pageRenderWaitMs
    const waited = await this.waitForOthers(visit, until)
    if (waited !== 'render') return waited === 'failed' ? new Error('the render it waited for failed') : undefined
    visit.revalidates(true)
    if (await stages.flights.claim(visit, until)) return undefined
    // Admitted as a revalidation: charged to nobody, never refused.
    if (!this.app.renderers.noneUp()) {
      this.app.admission.admitRender(visit.origin, true)
      visit.admit()
    }
    const outcome = await stages.renders.render(visit)
    if (outcome.kind === 'page') return this.stored(visit, outcome.rendered)
    visit.settleFlight(outcome.kind === 'missing' ? { kind: 'over' } : { kind: 'failed', error: outcome.error })
    if (outcome.kind === 'missing') pageCache.drop(visit.cacheKey)
    if (outcome.kind === 'error-page') discard(outcome.rendered)
    return outcome.kind === 'missing' ? undefined : outcome.error
  }

  /**
   * A render of the page under way here (a visitor's miss) is waited for
   * rather than made again; 'done' when the page is fresh now, or the wait
   * says it stays stale.
   */
  private async waitForOthers(visit: PageVisit, until: number): Promise<'render' | 'done' | 'failed'> {
    const { pageCache } = this.app
    let mayWait = true
    for (let waited = false; ; waited = true) {
      const stored = pageCache.get(visit.cacheKey)
      // A fresh page came meanwhile (another gateway's, a visitor's miss).
      if (stored && !pageCache.isStale(stored)) {
        visit.abandonRender()
        return 'done'
      }
      const waiting = mayWait ? this.stages.flights.wait(visit, until) : undefined
      if (!waiting) {
        // What this render stores must postdate the purges that came while it waited.
        if (waited) visit.renewTicket(pageCache.ticket())
        return 'render'
      }
      const outcome = await waiting
      if (outcome.kind === 'failed') return 'failed'
      if (outcome.kind === 'timeout') return 'done'
      if (outcome.kind !== 'again') mayWait = false
    }
  }

  /** The refreshed page stored as a visitor's miss stores it, read whole first; another answer (the page is gone) drops the stored one. */
  private async stored(visit: PageVisit, rendered: RenderResponse): Promise<unknown> {
    if (rendered.statusCode !== 200) {
      visit.settleFlight({ kind: 'over' })
      discard(rendered)
      this.app.pageCache.drop(visit.cacheKey)
      return undefined
    }
    const body = Buffer.isBuffer(rendered.body) ? rendered.body : await buffer(rendered.body)
    this.stages.store.storeAndSettle(visit, rendered, { ...HELMET_HEADERS }, body)
    return undefined
  }
}
