import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { apiRoutes } from './api.ts'
import { buildRoutes } from './builds.ts'
import { catchAllRoute } from './catch-all.ts'
import { setUpDevReload } from './dev-reload.ts'
import { embeddedCmsRoutes } from './embedded-cms.ts'
import { healthRoutes } from './health.ts'
import { previewEndRoutes } from './preview-end.ts'
import { purgeRoutes } from './purge.ts'
import { seoRoutes } from './seo.ts'

/** Every route of the public port, each group in a context of its own; pages and payloads last, under the catch-all. */
async function routes(app: FastifyInstance): Promise<void> {
  const { devReloadFile } = app.config
  if (devReloadFile !== undefined) setUpDevReload(app, devReloadFile)
  for (const group of [embeddedCmsRoutes, healthRoutes, apiRoutes, purgeRoutes, previewEndRoutes, buildRoutes, seoRoutes, catchAllRoute]) await app.register(group)
}

export default fp(routes, { name: 'routes', dependencies: ['app-plugins'] })
