import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { SitePath } from '../../shared/site-path.ts'
import { RendererUnavailableError } from '../errors.ts'
import { pagePolicies } from '../http/content-security.ts'
import { AdmitStage } from '../pages/admit-stage.ts'
import { CacheAnswers } from '../pages/cache-answers.ts'
import type { NotFoundFields } from '../pages/not-found-page.ts'
import { NotFoundStage, knownMissing } from '../pages/not-found-stage.ts'
import { PageFlights } from '../pages/page-flights.ts'
import { PageRefresh } from '../pages/page-refresh.ts'
import { PageStore } from '../pages/page-store.ts'
import { PageVisit } from '../pages/page-visit.ts'
import { RedirectStage } from '../pages/redirect-stage.ts'
import { RenderStage } from '../pages/render-stage.ts'
import { RenderedAnswers } from '../pages/send-rendered.ts'
import { resolveVisit } from '../pages/visit-resolution.ts'
import { discard } from '../renderers/renderer-pool.ts'

/**
 * Pages (routes/catch-all.ts), as a sequence of the stages in gateway/pages/:
 * the visit resolved (token, preview, address), a redirect, else the page
 * cache (fresh, or stale while one background render refreshes it), else
 * one render per page at a time (here and across gateways), admitted
 * against its client's budget, sent to the visitor as it streams and stored
 * once complete; a missing page is the one stored 404 page.
 */
export function pageAnswers(app: FastifyInstance): (request: FastifyRequest, reply: FastifyReply, requested: SitePath) => Promise<FastifyReply> {
  const pages = new PageSequence(app)
  return (request, reply, requested) => pages.answer(request, reply, requested)
}

class PageSequence {
  private readonly refresh: PageRefresh
  private readonly cache: CacheAnswers
  private readonly flights: PageFlights
  private readonly renders: RenderStage
  private readonly redirects: RedirectStage
  private readonly rendered: RenderedAnswers
  private readonly admit: AdmitStage
  private readonly notFound: NotFoundStage

  constructor(private readonly app: FastifyInstance) {
    const policies = pagePolicies(app.config)
    this.flights = new PageFlights(app)
    this.renders = new RenderStage(app)
    this.redirects = new RedirectStage(app, this.flights, this.renders)
    const store = new PageStore(app, policies)
    this.rendered = new RenderedAnswers(app, policies, store)
    // The refresh calls the stages a miss goes through; the cache stage asks it for refreshes.
    this.refresh = new PageRefresh(app, { redirects: this.redirects, flights: this.flights, renders: this.renders, store })
    this.cache = new CacheAnswers(app, this.refresh)
    this.admit = new AdmitStage(app, this.cache)
    this.notFound = new NotFoundStage(app, this.cache)
  }

  async answer(request: FastifyRequest, reply: FastifyReply, requested: SitePath): Promise<FastifyReply> {
    // A live page's visit and its redirect (none, mostly) are known at once: no promise is awaited for either then.
    const resolved = resolveVisit(this.app, request, reply, requested)
    const visit = resolved instanceof PageVisit ? resolved : await resolved
    // A preview's redirect lookup and render start at once, and no cache answers it: admitted before either.
    if (visit.preview) this.admit.refused(visit, reply)
    const redirecting = this.redirects.redirection(visit)
    const redirect = redirecting instanceof Promise ? await redirecting : redirecting
    if (redirect) return reply.redirect(redirect.to, redirect.statusCode)
    // A few misses per turn of the loop: the hits that arrive meanwhile are answered between them (admission/loop-turns.ts).
    const turn = this.app.missTurns.turn()
    if (turn !== undefined) await turn
    return this.answerLive(visit, reply)
  }

  /**
   * A live page from what is known or stored, else its render. A miss while
   * another request renders the page waits for that render (pages/page-flights.ts)
   * and looks again. On a failed render the waiters share the failure; past
   * the bound they get the stale page if there is one (the render they
   * waited on is slow, theirs would be too), else render themselves (it may
   * be one renderer that hangs).
   */
  private async answerLive(visit: PageVisit, reply: FastifyReply): Promise<FastifyReply> {
    const { app, cache, flights } = this
    const until = performance.now() + app.config.cache.pageRenderWaitMs
    let mayWait = true
    let waited = false
    for (;;) {
      const missing = knownMissing(app, visit)
      if (missing) return this.answerNotFound(visit, reply, missing)
      const stored = cache.fromCache(visit, reply)
      if (stored) return stored
      const waiting = mayWait ? flights.wait(visit, until) : undefined
      if (!waiting) break
      waited = true
      const outcome = await waiting
      if (outcome.kind === 'failed' || outcome.kind === 'timeout') {
        const stale = cache.stale(visit, reply)
        if (stale) return stale
        if (outcome.kind === 'failed') throw new RendererUnavailableError({ cause: outcome.error })
      }
      // 'again': the render was cut short, not for the page's sake; wait for the next one (within the bound).
      if (outcome.kind !== 'again') mayWait = false
    }
    // What this render stores must postdate the purges that came while it waited.
    if (waited) visit.renewTicket(app.pageCache.ticket())
    // Asked before admission: a page from another gateway is no work.
    const claiming = flights.claim(visit, until)
    const shared = claiming && (await claiming)
    if (shared) return cache.sendStored(visit, reply, shared, 'HIT')
    return this.admit.refused(visit, reply) ?? this.renderOrStale(visit, reply)
  }

  /** The rendered page, or a stale one when no renderer could render it (or it failed); without one, the Dutch 503 page (plugins/app/error-handler.ts). */
  private async renderOrStale(visit: PageVisit, reply: FastifyReply): Promise<FastifyReply> {
    const outcome = await this.renders.render(visit)
    if (outcome.kind === 'page') return this.rendered.send(visit, reply, outcome.rendered)
    if (outcome.kind === 'missing') {
      // The page's data says it is missing, as the payload cache now knows: the waiters find the stored 404 page (or its one render).
      visit.settleFlight({ kind: 'over' })
      return this.answerNotFound(visit, reply, outcome.page.fields)
    }
    visit.settleFlight({ kind: 'failed', error: outcome.error })
    const stale = this.cache.stale(visit, reply)
    if (outcome.kind === 'error-page') {
      if (!stale) return this.rendered.send(visit, reply, outcome.rendered)
      discard(outcome.rendered)
      return stale
    }
    if (!stale) throw new RendererUnavailableError({ cause: outcome.error })
    if (!outcome.refusal) visit.origin.log.error({ err: outcome.error }, 'no renderer could render the page')
    return stale
  }

  private answerNotFound(visit: PageVisit, reply: FastifyReply, fields: NotFoundFields): Promise<FastifyReply> {
    // The one render of the 404 page is work like any other: a client over its budget gets a stored one or 429.
    return this.notFound.answer(visit, reply, fields, async () => this.admit.refused(visit, reply) ?? this.renderOrStale(visit, reply))
  }
}
