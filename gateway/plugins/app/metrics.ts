import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Counter, Registry } from 'prom-client'
import { boundBy, counter, setUpMetrics, tally } from '../../../shared/metrics.ts'
import type { CacheStatus } from '../../cache/query-cache.ts'

export interface GatewayMetrics {
  /** Served on the internal listener (plugins/app/internal-listener.ts). */
  registry: Registry
  /** Requests answered, by route pattern, method and status; the page-cache fast path counts its own hits here. */
  requests: Counter<'route' | 'method' | 'status'>
  cacheLookups: Counter<'cache' | 'result'>
  countCacheLookup: (cache: 'query' | 'api' | 'page', result: CacheStatus) => void
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: GatewayMetrics
  }
}

/** Prometheus metrics of the gateway: the process, its requests by route and status, and its caches' lookups. */
async function metrics(app: FastifyInstance): Promise<void> {
  const { registry, requests } = setUpMetrics(app, 'gateway')
  const cacheLookups = counter(registry, 'cache_lookups_total', 'Cache lookups by cache (query, api, page) and result (HIT, MISS, STALE, BYPASS)', ['cache', 'result'])
  // Counted several times per page: each (cache, result) pair is a tally, added to the counter when it is read
  // (prom-client's inc on a bound child still showed in a fresh page's profile).
  const lookups = boundBy((key: string) => {
    const [cache, result] = key.split(':', 2) as [string, string]
    return tally(registry, cacheLookups, { cache, result })
  })
  const countCacheLookup: GatewayMetrics['countCacheLookup'] = (cacheName, result) => lookups(`${cacheName}:${result}`).inc()
  app.decorate('metrics', { registry, requests, cacheLookups, countCacheLookup })
}

export default fp(metrics, { name: 'metrics' })
