import type { FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import { PROBE_ROUTE } from '../../shared/logging.ts'
import { serveMetrics } from '../../shared/metrics.ts'
import type { Readiness } from '../health/readiness.ts'

/** Answered on the internal listener only. */
const INTERNAL_PATHS = ['/readyz', '/metrics'] as const

/**
 * The public port: GET /healthz, the process is alive (static, no check). The
 * internal paths are unknown here; without their own routes the catch-all page
 * route would ask the CMS for a page of that name.
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', PROBE_ROUTE, async () => ({ status: 'ok' }))
  for (const path of INTERNAL_PATHS) app.get(path, async (_request, reply) => reply.callNotFound())
}

export interface InternalRoutesOptions {
  gateway: FastifyInstance
  readiness: Readiness
  registry: Registry
}

/** The internal listener: /healthz, /readyz (503 while the gateway drains) and the gateway's /metrics. */
export async function internalRoutes(internal: FastifyInstance, { gateway, readiness, registry }: InternalRoutesOptions): Promise<void> {
  internal.get('/healthz', PROBE_ROUTE, async () => ({ status: 'ok' }))
  internal.get('/readyz', PROBE_ROUTE, async (_request, reply) => {
    reply.header('cache-control', 'no-store')
    if (gateway.drain.draining) return reply.code(503).send({ status: 'draining' })
    const report = await readiness.current()
    return reply.code(report.status === 'ready' ? 200 : 503).send(report)
  })
  serveMetrics(internal, registry)
}
