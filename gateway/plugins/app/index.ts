import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import type { RequestLogController } from '../../../shared/logging.ts'
import type { CrawlerResolver } from '../../admission/crawlers.ts'
import type { FastPath } from '../../cache/page-cache-hits.ts'
import admission from './admission.ts'
import buildInfo from './build-info.ts'
import cacheStatus from './cache-status.ts'
import client from './client.ts'
import craft from './craft.ts'
import drain from './drain.ts'
import embeddedCms from './embedded-cms.ts'
import internalListener from './internal-listener.ts'
import metrics from './metrics.ts'
import pageCache from './page-cache.ts'
import payloads from './payloads.ts'
import previewLimit from './preview-limit.ts'
import queryCache from './query-cache.ts'
import redirects from './redirects.ts'
import renderers from './renderers.ts'
import requestTracing from './request-tracing.ts'
import securityHeaders from './security-headers.ts'
import sharedTier from './shared-tier.ts'

export interface AppPluginOptions {
  /** The server's slot for the page-cache hits (http/server-options.ts). */
  fastPath: FastPath
  /** The request lines of the gateway, which its other listeners and the page-cache hits write too. */
  logController: RequestLogController
  /** Who answers the crawler checks' DNS questions (tests hand in a stub); node:dns otherwise. */
  crawlerResolver?: CrawlerResolver | undefined
}

/** The gateway's own capabilities in the order they need each other: the hooks every answer goes through first, then the services. */
const APP_PLUGINS: FastifyPluginAsync<AppPluginOptions>[] = [
  client,
  metrics,
  drain,
  requestTracing,
  cacheStatus,
  securityHeaders,
  admission,
  sharedTier,
  queryCache,
  pageCache,
  embeddedCms,
  craft,
  renderers,
  redirects,
  payloads,
  previewLimit,
  buildInfo,
  internalListener,
]

async function appPlugins(app: FastifyInstance, options: AppPluginOptions): Promise<void> {
  for (const plugin of APP_PLUGINS) await app.register(plugin, options)
}

export default fp(appPlugins, { name: 'app-plugins', dependencies: ['config', 'error-handler', 'external-plugins'] })
