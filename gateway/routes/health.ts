import type { FastifyInstance } from 'fastify'

/** GET /healthz: the process is alive. GET /readyz: a renderer and the CMS answer (and whether Redis does, when configured). */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }))
  app.get('/readyz', async (request, reply) => {
    const [renderer, upstream, redis] = await Promise.all([app.renderers.healthy(), app.content.ping(request.id), app.sharedCache?.ping()])
    const ready = renderer && upstream
    // Redis is reported, not required: without it the gateway serves from memory and the CMS.
    return reply.code(ready ? 200 : 503).header('cache-control', 'no-store').send({
      status: ready ? 'ready' : 'not ready',
      checks: {
        renderer: renderer ? 'ok' : 'unreachable',
        upstream: upstream ? 'ok' : 'unreachable',
        ...(redis === undefined ? {} : { redis: redis ? 'ok' : 'unreachable' }),
      },
    })
  })
}
