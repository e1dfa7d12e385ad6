import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Gauge } from 'prom-client'
import { type RequestLogController, levelEnabled } from '../../../shared/logging.ts'
import { counter, tally } from '../../../shared/metrics.ts'
import { type RouteTable, createRouteTable } from '../../../shared/routes.ts'
import { PageCache } from '../../cache/page-cache.ts'
import { type FastPath, createPageCacheHits } from '../../cache/page-cache-hits.ts'
import { PageRefreshes } from '../../cache/page-refreshes.ts'
import { RenderFlights } from '../../cache/render-flights.ts'
import type { CacheStatus } from '../../cache/query-cache.ts'
import { isHttps, trustFunction } from '../../http/trust-proxy.ts'
import { NOT_FOUND_PAGE_KEY } from '../../pages/not-found-page.ts'
import { CATCH_ALL_ROUTE } from '../../routes/catch-all.ts'
import { STRICT_TRANSPORT_SECURITY } from './security-headers.ts'

declare module 'fastify' {
  interface FastifyInstance {
    pageCache: PageCache
    pageCacheLookups: (result: CacheStatus) => void
    /** One render per page key at a time (PAGE_RENDER_WAIT_MS): the renders under way that other misses wait on. */
    renderFlights: RenderFlights
    /** The background renders of stale pages (PAGE_REFRESH_CONCURRENCY, PAGE_REFRESH_QUEUE). */
    pageRefreshes: PageRefreshes
  }
}

export interface PageCacheOptions {
  /** The server's slot for the hits answered before Fastify (http/server-options.ts). */
  fastPath: FastPath
  logController: RequestLogController
}

/**
 * Whether a page-cache key is one of the pages that matter: a page of the
 * sitemap (the path its route indexes: a stored page rendered 200, so its
 * entry is live, as the sitemap lists it; with any page number of its
 * list) or the stored 404 page.
 */
export function listedKey(routes: RouteTable): (key: string) => boolean {
  return (key) => {
    if (key === NOT_FOUND_PAGE_KEY) return true
    const cut = key.indexOf('?')
    try {
      return routes.isCanonical(decodeURIComponent(cut === -1 ? key : key.slice(0, cut)))
    } catch {
      return false
    }
  }
}

/** The page-cache hits answered before Fastify, counted and logged as the catch-all route would. */
function answerHits(app: FastifyInstance, routes: RouteTable, { logController }: PageCacheOptions): FastPath['answer'] {
  const { metrics } = app
  const trustProxy = trustFunction(app.config.trustProxy)
  // Tallied as plain numbers and added to the counters when they are read: labelling, even a bound child's inc, costs a hit more than its bytes.
  const plainHits = tally(metrics.registry, metrics.requests, { route: CATCH_ALL_ROUTE, method: 'GET', status: '200' })
  const pageHits = { HIT: tally(metrics.registry, metrics.cacheLookups, { cache: 'page', result: 'HIT' }), STALE: tally(metrics.registry, metrics.cacheLookups, { cache: 'page', result: 'STALE' }) }
  // onHit runs synchronously inside answerHit: one variable times each hit, and is negative while the line is not logged.
  let hitStartedAt = -1
  const answerHit = createPageCacheHits({
    pageCache: app.pageCache,
    routes,
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
  const routes = createRouteTable(app.config.siteHandle)
  app.decorate(
    'pageCache',
    new PageCache({
      maxEntries: cache.pageMaxEntries,
      maxBytes: cache.pageMaxBytes,
      listed: listedKey(routes),
      ttlMs: cache.pageTtlMs,
      staleIfErrorMs: cache.staleIfErrorMs,
      staleWhileRevalidateMs: cache.staleWhileRevalidateMs,
    }),
  )
  const renderFlights = new RenderFlights()
  const waits = counter(app.metrics.registry, 'page_render_waits_total', "Page-cache misses that waited for another request's render of the page, by how the wait ended (over, again, failed, timeout)", ['outcome'])
  renderFlights.on('waited', (_key, outcome) => waits.inc({ outcome }))
  app.decorate('renderFlights', renderFlights)
  const refreshes = counter(app.metrics.registry, 'page_refreshes_total', 'Background refreshes of stale pages asked for, by what became of them (started, queued, running: one was under way, refused: the queue was full)', ['outcome'])
  const pageRefreshes = new PageRefreshes({ maxInFlight: cache.pageRefreshConcurrency, maxQueued: cache.pageRefreshQueue, onScheduled: (outcome) => refreshes.inc({ outcome }) })
  app.decorate('pageRefreshes', pageRefreshes)
  app.addHook('onClose', async () => pageRefreshes.close())
  // What the page cache holds, as PAGE_CACHE_MAX_ENTRIES and PAGE_CACHE_MAX_BYTES count it, and the refreshes under way: read when /metrics is.
  const pages = app.pageCache
  const gauges: [string, string, () => number][] = [
    ['page_cache_entries', 'Pages in the page cache', () => pages.size],
    ['page_cache_bytes', 'Bytes of the page cache as PAGE_CACHE_MAX_BYTES counts them (bodies, the compressed copies made, strings, overhead)', () => pages.bytes],
    ['page_refreshes_in_flight', 'Background refreshes of stale pages running now', () => pageRefreshes.inFlight],
    ['page_refreshes_waiting', 'Background refreshes of stale pages waiting their turn now', () => pageRefreshes.queued],
  ]
  for (const [name, help, read] of gauges) {
    new Gauge({
      name,
      help,
      registers: [app.metrics.registry],
      collect() {
        this.set(read())
      },
    })
  }
  app.decorate('pageCacheLookups', (result: CacheStatus) => countCacheLookup('page', result))
  if (cache.pageCache && cache.pageCacheFastPath) options.fastPath.answer = answerHits(app, routes, options)
}

export default fp(pageCache, { name: 'page-cache', dependencies: ['config', 'metrics', 'drain'] })
