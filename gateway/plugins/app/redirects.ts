import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Redirects } from '../../pages/redirects.ts'

declare module 'fastify' {
  interface FastifyInstance {
    redirects: Redirects
  }
}

/** The redirect rules of configuration (REDIRECTS) and of the CMS. */
async function redirects(app: FastifyInstance): Promise<void> {
  const { config } = app
  app.decorate('redirects', new Redirects(config.redirects, app.content, config.siteHandle, config.craftToken, app.log))
}

export default fp(redirects, { name: 'redirects', dependencies: ['config', 'craft'] })
