import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { GatewayConfig } from '../../config.ts'

declare module 'fastify' {
  interface FastifyInstance {
    config: GatewayConfig
  }
}

/** The gateway's configuration (config.ts, read once by the caller), for every plugin and route. */
async function config(app: FastifyInstance, options: { config: GatewayConfig }): Promise<void> {
  app.decorate('config', options.config)
}

export default fp(config, { name: 'config' })
