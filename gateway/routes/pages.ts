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
import type { PageVisit } from '../pages/page-visit.ts'
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
  const policies = pagePolicies(app.config)
  const refresh = new PageRefresh(app)
  const cache = new CacheAnswers(app, refresh)
  const flights = new PageFlights(app)
  const renders = new RenderStage(app)
  const redirects = new RedirectStage(app, flights, renders)
  const store = new PageStore(app, policies)
  const rendered = new RenderedAnswers(app, policies, store)
  const admit = new AdmitStage(app, cache)
  const notFound = new NotFoundStage(app, cache)
  refresh.use({ redirects, flights, renders, store })

  /**
   * A live page from what is known or stored, else its render. A miss while
   * another request renders the page waits for that render (pages/page-flights.ts)
   * and looks again. On a failed render the waiters share the failure; past
   * the bound they get the stale page if there is one (the render they
   * waited on is slow, theirs would be too), else render themselves (it may
   * be one renderer that hangs).
   */
  async function answerLive(visit: PageVisit, reply: FastifyReply): Promise<FastifyReply> {
    const until = performance.now() + app.config.cache.pageRenderWaitMs
    let mayWait = true
    let waited = false
    for (;;) {
      const missing = knownMissing(app, visit)
      if (missing) return answerNotFound(visit, reply, missing)
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
    if (waited) visit.ticket = app.pageCache.ticket()
    // Asked before admission: a page from another gateway is no work.
    const shared = await flights.claim(visit, until)
    if (shared) return cache.sendStored(visit, reply, shared, 'HIT')
    return admit.refused(visit, reply) ?? renderOrStale(visit, reply)
  }

  /** The rendered page, or a stale one when no renderer could render it (or it failed); without one, the Dutch 503 page (plugins/app/error-handler.ts). */
  async function renderOrStale(visit: PageVisit, reply: FastifyReply): Promise<FastifyReply> {
    const outcome = await renders.render(visit)
    if (outcome.kind === 'page') return rendered.send(visit, reply, outcome.rendered)
    if (outcome.kind === 'missing') {
      // The page's data says it is missing, as the payload cache now knows: the waiters find the stored 404 page (or its one render).
      visit.settleFlight({ kind: 'over' })
      return answerNotFound(visit, reply, outcome.page.fields)
    }
    visit.settleFlight({ kind: 'failed', error: outcome.error })
    const stale = cache.stale(visit, reply)
    if (outcome.kind === 'error-page') {
      if (!stale) return rendered.send(visit, reply, outcome.rendered)
      discard(outcome.rendered)
      return stale
    }
    if (!stale) throw new RendererUnavailableError({ cause: outcome.error })
    if (!outcome.refusal) visit.origin.log.error({ err: outcome.error }, 'no renderer could render the page')
    return stale
  }

  function answerNotFound(visit: PageVisit, reply: FastifyReply, fields: NotFoundFields): Promise<FastifyReply> {
    // The one render of the 404 page is work like any other: a client over its budget gets a stored one or 429.
    return notFound.answer(visit, reply, fields, async () => admit.refused(visit, reply) ?? renderOrStale(visit, reply))
  }

  return async (request, reply, requested) => {
    const visit = await resolveVisit(app, request, reply, requested)
    // A preview's redirect lookup and render start at once, and no cache answers it: admitted before either.
    if (visit.preview) admit.refused(visit, reply)
    const redirect = await redirects.redirection(visit)
    if (redirect) return reply.redirect(redirect.to, redirect.statusCode)
    // A few misses per turn of the loop: the hits that arrive meanwhile are answered between them (admission/loop-turns.ts).
    const turn = app.missTurns.turn()
    if (turn !== undefined) await turn
    return answerLive(visit, reply)
  }
}
