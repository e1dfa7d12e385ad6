import type { FastifyInstance, FastifyReply } from 'fastify'
import { overBudget } from '../admission/admission.ts'
import type { CacheAnswers } from './cache-answers.ts'
import type { PageVisit } from './page-visit.ts'

/**
 * The admission stage (gateway/admission/): a render is work its client
 * pays for, unless it renders again a page already stored. A client over
 * its work budget gets the stored page if there is one, else 429 with
 * Retry-After. A visit is admitted once: a preview before anything starts,
 * a live page once the cache missed.
 */
export class AdmitStage {
  constructor(
    private readonly app: FastifyInstance,
    private readonly cache: CacheAnswers,
  ) {}

  /** Undefined when the visit may render; else its answer (a stale page), or it throws the 429. */
  refused(visit: PageVisit, reply: FastifyReply): FastifyReply | undefined {
    if (visit.admitted) return undefined
    // No renderer up: the render fails at once without any work (pages/render-stage.ts), so nothing is charged. The stored
    // page or the 503 page answers, and nginx takes a 503 to the next gateway; a 429 would end the visit here.
    if (this.app.renderers.noneUp()) {
      visit.foundNoRendererUp()
      return undefined
    }
    visit.admit()
    const retryAfter = this.app.admission.admitRender(visit.origin, visit.revalidating)
    if (retryAfter === undefined) return undefined
    // Another client's miss may render the page for the waiters.
    visit.abandonRender('again')
    const stale = this.cache.stale(visit, reply)
    if (stale) return stale
    throw overBudget(reply, retryAfter)
  }
}
