import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import compress from './compress.ts'
import cookie from './cookie.ts'
import helmet from './helmet.ts'
import rateLimit from './rate-limit.ts'
import staticFiles from './static.ts'

/** Third-party plugins with the gateway's settings, before its own plugins and routes (static files' routes after the error handler, which a route keeps from when it is added). */
async function externalPlugins(app: FastifyInstance): Promise<void> {
  for (const plugin of [helmet, cookie, rateLimit, compress, staticFiles]) await app.register(plugin)
}

export default fp(externalPlugins, { name: 'external-plugins', dependencies: ['config', 'error-handler'] })
