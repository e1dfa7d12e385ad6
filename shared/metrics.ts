import type { FastifyInstance } from 'fastify'
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { EVENT_LOOP_SAMPLE_MS } from './constants.ts'
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
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS })
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  })
  // A tally per route, method and status (routes are patterns, methods those Node parses: a bounded set); prom-client hashes a child's labels on every inc.
  const answered = boundBy((key: string) => {
    // Method and status hold no space; the route is the rest, whatever it holds.
    const [method, status] = key.split(' ', 2) as [string, string]
    return tally(registry, requests, { route: key.slice(method.length + status.length + 2), method, status })
  })
  app.addHook('onResponse', (request, reply, done) => {
    answered(`${request.method} ${reply.statusCode} ${request.routeOptions.url ?? 'unmatched'}`).inc()
    done()
  })
  return { registry, requests }
}

/**
 * A metric's child for each key, made once: prom-client hashes an object's
 * labels on every call, and the label sets a service counts are few.
 */
export function boundBy<K, C>(make: (key: K) => C): (key: K) => C {
  const children = new Map<K, C>()
  return (key) => {
    let child = children.get(key)
    if (child === undefined) children.set(key, (child = make(key)))
    return child
  }
}

/** What each registry's tallies add to their counters before it is read (see `tally`). */
const beforeRead = new WeakMap<Registry, (() => void)[]>()

/**
 * A count for one labelled child of a counter, kept as a plain number and
 * added to the counter when the registry is read (`serveMetrics`): for a
 * path counted tens of thousands of times a second, where prom-client's inc
 * hashes its labels on every call (a page-cache hit costs about 30 µs in all).
 */
export function tally<L extends string>(registry: Registry, counted: Counter<L>, labels: Partial<Record<L, string | number>>): { inc: () => void } {
  const child = counted.labels(labels)
  let pending = 0
  const flushes = beforeRead.get(registry) ?? []
  beforeRead.set(registry, flushes)
  flushes.push(() => {
    if (pending === 0) return
    child.inc(pending)
    pending = 0
  })
  return { inc: () => void pending++ }
}

/** The registry's metrics in the text format, its tallies added first. */
export function readMetrics(registry: Registry): Promise<string> {
  for (const flush of beforeRead.get(registry) ?? []) flush()
  return registry.metrics()
}

/** GET /metrics in the text format; on the service itself, or on a listener of its own. */
export function serveMetrics(app: FastifyInstance, registry: Registry): void {
  app.get('/metrics', PROBE_ROUTE, async (_request, reply) =>
    reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(await readMetrics(registry)),
  )
}

export function histogram<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Histogram<L> {
  return new Histogram({ name, help, labelNames, buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry] })
}

export function counter<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [registry] })
}
