import type { FastifyInstance } from 'fastify'
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { PROBE_ROUTE } from './logging.ts'

export interface ServiceMetrics {
  registry: Registry
  requests: Counter<'route' | 'method' | 'status'>
}

/**
 * Prometheus metrics of one service: process defaults, and requests by route
 * and status. Served by `serveMetrics`.
 */
export function setUpMetrics(app: FastifyInstance, service: string): ServiceMetrics {
  const registry = new Registry()
  registry.setDefaultLabels({ service })
  collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  })
  // Each route, method and status's child counter is kept (routes are patterns, methods those Node parses: a bounded set); labelling by object hashes the labels on every request.
  const children = new Map<string, ReturnType<typeof requests.labels>>()
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    const key = `${request.method} ${reply.statusCode} ${route}`
    let child = children.get(key)
    if (child === undefined) children.set(key, (child = requests.labels({ route, method: request.method, status: String(reply.statusCode) })))
    child.inc()
    done()
  })
  return { registry, requests }
}

/** GET /metrics in the text format; on the service itself, or on a listener of its own. */
export function serveMetrics(app: FastifyInstance, registry: Registry): void {
  app.get('/metrics', PROBE_ROUTE, async (_request, reply) =>
    reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(await registry.metrics()),
  )
}

export function histogram<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Histogram<L> {
  return new Histogram({ name, help, labelNames, buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry] })
}

export function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [registry] })
}
