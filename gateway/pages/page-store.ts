import type { FastifyInstance } from 'fastify'
import { CSP_NONCE_HEADER, RENDER_OUTCOME_TRAILER } from '../../shared/constants.ts'
import { cacheTagHeaders } from '../cache/cache-tags.ts'
import { type PagePolicies, forCaching } from '../http/content-security.ts'
import { publicCacheControl } from '../http/http-caching.ts'
import { answerTags } from '../renderers/answer-tags.ts'
import type { RenderResponse } from '../renderers/renderer-pool.ts'
import { notFoundTemplate } from './not-found-page.ts'
import type { PageVisit } from './page-visit.ts'

/** Headers of the renderer's answer that reach the visitor. */
const PASSED_HEADERS = ['content-type', 'cache-control', 'x-robots-tag', 'content-language', 'link', 'vary']

export function passedHeaders(rendered: RenderResponse): Record<string, string> {
  const passed: Record<string, string> = {}
  for (const name of PASSED_HEADERS) {
    const value = rendered.headers[name]
    if (typeof value === 'string') passed[name] = value
  }
  return passed
}

/**
 * The store stage: a rendered page, once complete, kept in the page cache
 * (and with the shared tier in Redis, for the other gateways) as the
 * visitor got it, its nonces swapped for hashes, with the tags the render's
 * answer says it showed. The flight of its render is settled once that is
 * done, so that the misses that waited find it.
 */
export class PageStore {
  constructor(
    private readonly app: FastifyInstance,
    private readonly policies: PagePolicies,
  ) {}

  /**
   * Stores the page the visitor got (`headers`: what went out with it, the
   * security headers included) and settles the visit's flight: the waiters
   * then find it, or render themselves; a purge since its render began kept
   * it out, and they may wait for a new one.
   */
  storeAndSettle(visit: PageVisit, rendered: RenderResponse, headers: Record<string, string>, body: Buffer): void {
    const { flight } = visit
    if (flight) visit.startStoring()
    this.store(visit, rendered, headers, body)
    flight?.settle({ kind: this.app.pageCache.ticket() === visit.ticket ? 'over' : 'again' })
  }

  /** The page stored, when its render was complete and its answer said what it showed. */
  store(visit: PageVisit, rendered: RenderResponse, headers: Record<string, string>, body: Buffer): void {
    const { app } = this
    const { origin } = visit
    // A page rendered whole says so in a header, a streamed one in its trailer.
    const outcome = rendered.trailers[RENDER_OUTCOME_TRAILER] ?? rendered.headers[RENDER_OUTCOME_TRAILER]
    if (outcome !== 'complete') {
      origin.log.warn({ outcome: outcome ?? 'unknown' }, 'degraded render; not cached')
      return
    }
    const nonce = rendered.headers[CSP_NONCE_HEADER]
    const { html, inline } = forCaching(body.toString('utf8'), typeof nonce === 'string' ? nonce : undefined)
    if (visit.notFound && !notFoundTemplate(html)) {
      origin.log.warn('the 404 page does not hold its address once; not cached')
      return
    }
    const cacheControl = publicCacheControl(app.config.cache.pageTtlMs, app.config.cache.staleWhileRevalidateMs)
    const stored = { ...headers, ...passedHeaders(rendered), 'cache-control': cacheControl, 'content-security-policy': this.policies.withInline(inline) }
    // What the page showed, as the render's answer says it once complete.
    const tags = answerTags(rendered)
    if (tags === undefined) {
      origin.log.warn('the render did not say the tags of the page; not cached')
      return
    }
    const page = { statusCode: rendered.statusCode, headers: { ...stored, ...cacheTagHeaders(tags) }, body: Buffer.from(html), tags }
    app.pageCache.store(visit.ticket, visit.cacheKey, page.statusCode, page.headers, page.body, tags)
    // For the other gateways, unless a purge came here since the render began (Redis has its own check).
    if (visit.ticket === app.pageCache.ticket()) visit.sharedLock?.store({ ...page, storedAt: Date.now() })
  }
}
