import type { FastifyInstance } from 'fastify'

/** GET /healthz: the process is alive. GET /readyz: a renderer and the CMS answer. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }))
  app.get('/readyz', async (request, reply) => {
    const [renderer, upstream] = await Promise.all([app.renderers.healthy(), app.content.ping(request.id)])
    const ready = renderer && upstream
    return reply.code(ready ? 200 : 503).header('cache-control', 'no-store').send({
      status: ready ? 'ready' : 'not ready',
      checks: { renderer: renderer ? 'ok' : 'unreachable', upstream: upstream ? 'ok' : 'unreachable' },
    })
  })
}
