import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { createRouteTable } from '../../../shared/routes.ts'
import { PayloadBuilder } from '../../payload/build-payload.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Builds a page's payload: its route's operations run through the query caches. */
    payloads: PayloadBuilder
  }
}

async function payloads(app: FastifyInstance): Promise<void> {
  const { config } = app
  app.decorate('payloads', new PayloadBuilder(createRouteTable(config.siteHandle), app.content, config.siteUrl.href.replace(/\/+$/, '')))
}

export default fp(payloads, { name: 'payloads', dependencies: ['config', 'craft'] })
