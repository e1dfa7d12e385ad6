import type { FastifyInstance } from 'fastify'

/**
 * GET /healthz: the process is alive. GET /readyz: a renderer and the CMS
 * answer and Craft's schema has been checked (and whether Redis does, when
 * configured). Operations Craft's schema refuses are reported but do not make
 * the gateway unready: every other page works.
 */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }))
  app.get('/readyz', async (request, reply) => {
    const [renderer, upstream, redis] = await Promise.all([app.renderers.healthy(), app.content.ping(request.id), app.sharedCache?.ping(), app.craftSchema.settled()])
    const schema = app.craftSchema.status
    const ready = renderer && upstream && app.craftSchema.ready
    // Redis is reported, not required: without it the gateway serves from memory and the CMS.
    return reply.code(ready ? 200 : 503).header('cache-control', 'no-store').send({
      status: ready ? 'ready' : 'not ready',
      checks: {
        renderer: renderer ? 'ok' : 'unreachable',
        upstream: upstream ? 'ok' : 'unreachable',
        schema: schema.state,
        ...(redis === undefined ? {} : { redis: redis ? 'ok' : 'unreachable' }),
      },
      schema: { craftVersion: schema.craftVersion, failing: schema.failing },
    })
  })
}
