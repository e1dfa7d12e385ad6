import type { FastifyInstance, FastifyReply } from 'fastify'
import { CACHE_STATUS_HEADER, PRIVATE_NO_STORE } from '../../shared/constants.ts'
import type { CachedPage } from '../cache/page-cache.ts'
import { PRIVATE_NO_CACHE, notModified, weakEtag } from '../http/http-caching.ts'
import { dropUnusableCookie } from '../preview/tokens.ts'
import { fillNotFound } from './not-found-page.ts'
import type { PageRefresh } from './page-refresh.ts'
import type { PageVisit } from './page-visit.ts'

/**
 * The stage that answers from the page cache: a fresh page, or one past its
 * TTL (or marked by a soft purge) while one background render refreshes it
 * (STALE), or a stale one standing in when no renderer could make it.
 */
export class CacheAnswers {
  constructor(
    private readonly app: FastifyInstance,
    private readonly refreshes: PageRefresh,
  ) {}

  /**
   * The stored page, if any. On a miss with no page there this visit renders
   * it, holding the page's revalidation claim so that the others get a stale
   * page until its answer is over.
   */
  fromCache(visit: PageVisit, reply: FastifyReply): FastifyReply | undefined {
    if (!visit.useCache) return undefined
    const { pageCache } = this.app
    const { cacheKey } = visit
    const cached = pageCache.get(cacheKey)
    const status = cached === undefined ? 'MISS' : pageCache.isStale(cached) ? 'STALE' : 'HIT'
    // Past its TTL or marked by a soft purge: this visitor gets it at once too, and one render in the background refreshes it.
    const purged = cached === undefined && visit.storable ? pageCache.refreshablePage(cacheKey) : undefined
    this.app.pageCacheLookups(purged ? 'STALE' : status)
    if (purged && this.refreshes.refreshInBackground(visit)) {
      visit.abandonRender()
      return this.sendStored(visit, reply, purged, 'STALE')
    }
    if (!cached) {
      const release = visit.storable ? pageCache.claimRevalidation(cacheKey) : undefined
      if (release) visit.origin.onEnd(release)
      visit.revalidates(release !== undefined)
      return undefined
    }
    visit.abandonRender()
    return this.sendStored(visit, reply, cached, status === 'STALE' ? 'STALE' : 'HIT')
  }

  /**
   * A stored page past its TTL, when no renderer could make it again (within
   * CACHE_STALE_IF_ERROR_MS): better than an error page. The browser may
   * keep it no longer than this answer; a shared cache not at all.
   */
  stale(visit: PageVisit, reply: FastifyReply): FastifyReply | undefined {
    const stale = visit.useCache ? this.app.pageCache.stale(visit.cacheKey) : undefined
    if (!stale) return undefined
    this.app.pageCacheLookups('STALE')
    visit.origin.log.warn('no renderer answered; a stale page stands in')
    return this.sendStored(visit, reply, stale, 'STALE', PRIVATE_NO_CACHE)
  }

  /** A stored page as it was stored; the 404 page with the visitor's own fields, private as every error. */
  sendStored(visit: PageVisit, reply: FastifyReply, page: CachedPage, status: 'HIT' | 'STALE', cacheControl?: string): FastifyReply {
    const { notFound } = visit
    const body = notFound ? fillNotFound(page.body, notFound) : page.body
    const etag = notFound ? weakEtag(body) : page.etag
    reply.code(page.statusCode).headers(page.headers).header(CACHE_STATUS_HEADER, status).header('etag', etag)
    if (notFound) reply.header('cache-control', PRIVATE_NO_STORE)
    else if (cacheControl) reply.header('cache-control', cacheControl)
    dropUnusableCookie(reply, visit.context)
    return notModified(reply.request, etag) ? reply.code(304).send() : reply.send(body)
  }
}
