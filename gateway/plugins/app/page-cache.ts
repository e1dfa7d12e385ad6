import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type RequestLogController, levelEnabled } from '../../../shared/logging.ts'
import { tally } from '../../../shared/metrics.ts'
import { PageCache } from '../../cache/page-cache.ts'
import { type FastPath, createPageCacheHits } from '../../cache/page-cache-hits.ts'
import type { CacheStatus } from '../../cache/query-cache.ts'
import { isHttps, trustFunction } from '../../http/trust-proxy.ts'
import { CATCH_ALL_ROUTE } from '../../routes/catch-all.ts'
import { STRICT_TRANSPORT_SECURITY } from './security-headers.ts'

declare module 'fastify' {
  interface FastifyInstance {
    pageCache: PageCache
    pageCacheLookups: (result: CacheStatus) => void
  }
}

export interface PageCacheOptions {
  /** The server's slot for the hits answered before Fastify (http/server-options.ts). */
  fastPath: FastPath
  logController: RequestLogController
}

/** The page-cache hits answered before Fastify, counted and logged as the catch-all route would. */
function answerHits(app: FastifyInstance, { logController }: PageCacheOptions): FastPath['answer'] {
  const { metrics } = app
  const trustProxy = trustFunction(app.config.trustProxy)
  // Tallied as plain numbers and added to the counters when they are read: labelling, even a bound child's inc, costs a hit more than its bytes.
  const plainHits = tally(metrics.registry, metrics.requests, { route: CATCH_ALL_ROUTE, method: 'GET', status: '200' })
  const pageHits = { HIT: tally(metrics.registry, metrics.cacheLookups, { cache: 'page', result: 'HIT' }), STALE: tally(metrics.registry, metrics.cacheLookups, { cache: 'page', result: 'STALE' }) }
  // onHit runs synchronously inside answerHit: one variable times each hit, and is negative while the line is not logged.
  let hitStartedAt = -1
  const answerHit = createPageCacheHits({
    pageCache: app.pageCache,
    accepting: () => !app.drain.draining,
    isHttps: (request) => isHttps(request, trustProxy),
    strictTransportSecurity: STRICT_TRANSPORT_SECURITY,
    onHit: (request, requestId, statusCode, cache) => {
      if (statusCode === 200 && request.method === 'GET') plainHits.inc()
      else metrics.requests.inc({ route: CATCH_ALL_ROUTE, method: request.method ?? 'GET', status: String(statusCode) })
      pageHits[cache].inc()
      if (hitStartedAt >= 0) logController.completed(app.log, { requestId, req: request, res: { statusCode }, cache, responseTime: performance.now() - hitStartedAt })
    },
  })
  return (request, response) => {
    hitStartedAt = levelEnabled(app.log, 'info') ? performance.now() : -1
    return answerHit(request, response)
  }
}

/** Whole rendered pages, and (with PAGE_CACHE_FAST_PATH) their hits answered before Fastify sees the request. */
async function pageCache(app: FastifyInstance, options: PageCacheOptions): Promise<void> {
  const { cache } = app.config
  const { countCacheLookup } = app.metrics
  app.decorate('pageCache', new PageCache({ maxEntries: cache.pageMaxEntries, maxBytes: cache.pageMaxBytes, ttlMs: cache.pageTtlMs, staleIfErrorMs: cache.staleIfErrorMs, staleWhileRevalidateMs: cache.staleWhileRevalidateMs }))
  app.decorate('pageCacheLookups', (result: CacheStatus) => countCacheLookup('page', result))
  if (cache.pageCache && cache.pageCacheFastPath) options.fastPath.answer = answerHits(app, options)
}

export default fp(pageCache, { name: 'page-cache', dependencies: ['config', 'metrics', 'drain'] })
