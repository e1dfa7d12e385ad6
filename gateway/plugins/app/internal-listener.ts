import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { type RequestLogController, requestIdOf } from '../../../shared/logging.ts'
import { Readiness, checkReadiness } from '../../health/readiness.ts'
import { internalRoutes } from '../../routes/health.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The internal listener (INTERNAL_HOST:INTERNAL_PORT): health, readiness
     * and metrics for probes and scrapers. Listened on by the caller, as the
     * gateway is; closed with the gateway.
     */
    internal: FastifyInstance
    /** The internal listener's readiness: forgotten when what it reports may have changed at once (new addresses). */
    readiness: Readiness
  }
}

/**
 * A second, small Fastify app beside the gateway, sharing its services and
 * logger. Readiness asks the CMS, the renderers and Redis, and metrics tell
 * versions and latencies: neither belongs on the public port.
 */
async function internalListener(gateway: FastifyInstance, { logController }: { logController: RequestLogController }): Promise<void> {
  const internal = Fastify({
    loggerInstance: gateway.log.child({ listener: 'internal' }),
    genReqId: requestIdOf,
    // Its routes are probes and scrapes, logged at debug; readiness changes are logged at info instead.
    logController,
    return503OnClosing: true,
  })
  const readiness = new Readiness({
    check: () => checkReadiness(gateway),
    cacheMs: gateway.config.readinessCacheMs,
    onChange: (report) =>
      report.status === 'ready' ? internal.log.info({ checks: report.checks }, 'gateway ready') : internal.log.warn({ checks: report.checks }, 'gateway not ready'),
  })
  await internal.register(internalRoutes, { gateway, readiness, registry: gateway.metrics.registry })
  gateway.decorate('internal', internal)
  gateway.decorate('readiness', readiness)
  gateway.addHook('onClose', async () => internal.close())
}

export default fp(internalListener, { name: 'internal-listener', dependencies: ['config', 'metrics', 'drain', 'craft', 'renderers', 'shared-tier'] })
