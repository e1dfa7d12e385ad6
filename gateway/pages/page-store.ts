import type { FastifyInstance } from 'fastify'
import { CSP_NONCE_HEADER, RENDER_OUTCOME_TRAILER } from '../../shared/constants.ts'
import { cacheTagHeaders } from '../cache/cache-tags.ts'
import { type PagePolicies, forCaching } from '../http/content-security.ts'
import { publicCacheControl } from '../http/http-caching.ts'
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
 * visitor got it, its nonces swapped for hashes, with the tags of the data
 * it was rendered from. The flight of its render is settled once that is
 * done, so that the misses that waited find it.
 */
export class PageStore {
  constructor(
    private readonly app: FastifyInstance,
    private readonly policies: PagePolicies,
  ) {}

  /**
   * Stores the page the visitor got (`headers`: what went out with it, the
   * security headers included) and settles the visit's flight once that is
   * done (or is not): the waiters then find it, or render themselves; a
   * purge since its render began kept it out, and they may wait for a new one.
   */
  storeAndSettle(visit: PageVisit, rendered: RenderResponse, headers: Record<string, string>, body: Buffer): Promise<void> {
    const storing = this.store(visit, rendered, headers, body)
    const { flight } = visit
    if (!flight) return storing ?? Promise.resolve()
    visit.startStoring()
    const settle = (): void => flight.settle({ kind: this.app.pageCache.ticket() === visit.ticket ? 'over' : 'again' })
    if (!storing) {
      settle()
      return Promise.resolve()
    }
    return storing.finally(settle)
  }

  /** The page stored, when its render was complete; undefined when it is not stored, else settled once it is (or failed). */
  store(visit: PageVisit, rendered: RenderResponse, headers: Record<string, string>, body: Buffer): Promise<void> | undefined {
    const { app } = this
    const { origin, url, context } = visit
    // A page rendered whole says so in a header, a streamed one in its trailer.
    const outcome = rendered.trailers[RENDER_OUTCOME_TRAILER] ?? rendered.headers[RENDER_OUTCOME_TRAILER]
    if (outcome !== 'complete') {
      origin.log.warn({ outcome: outcome ?? 'unknown' }, 'degraded render; not cached')
      return undefined
    }
    const nonce = rendered.headers[CSP_NONCE_HEADER]
    const { html, inline } = forCaching(body.toString('utf8'), typeof nonce === 'string' ? nonce : undefined)
    if (visit.notFound && !notFoundTemplate(html)) {
      origin.log.warn('the 404 page does not hold its address once; not cached')
      return undefined
    }
    const cacheControl = publicCacheControl(app.config.cache.pageTtlMs, app.config.cache.staleWhileRevalidateMs)
    const stored = { ...headers, ...passedHeaders(rendered), 'cache-control': cacheControl, 'content-security-policy': this.policies.withInline(inline) }
    const keep = (tags: readonly string[]): void => {
      const page = { statusCode: rendered.statusCode, headers: { ...stored, ...cacheTagHeaders(tags) }, body: Buffer.from(html), tags }
      app.pageCache.store(visit.ticket, visit.cacheKey, page.statusCode, page.headers, page.body, tags)
      // For the other gateways, unless a purge came here since the render began (Redis has its own check).
      if (visit.ticket === app.pageCache.ticket()) visit.sharedLock?.store({ ...page, storedAt: Date.now() })
    }
    const recorded = app.renderTags.take(origin.id)
    if (recorded.length > 0) {
      keep(recorded)
      return undefined
    }
    // No payload of this render came through this gateway (the renderer asked another): the caches know the tags.
    return app.payloads.pageTags(url.path, url.search, context).then(keep, (error: unknown) => origin.log.warn({ err: error }, 'tags of the page unknown; not cached'))
  }
}
