import Fastify, { type FastifyInstance } from 'fastify'
import { API_PATH } from '../shared/constants.ts'
import { loggingOptions } from '../shared/logging.ts'
import { noFastPathYet } from './cache/page-cache-hits.ts'
import type { CrawlerResolver } from './admission/crawlers.ts'
import type { GatewayConfig } from './config.ts'
import { refuseOversizedRequest } from './http/error-answers.ts'
import { gatewayServerOptions } from './http/server-options.ts'
import configPlugin from './plugins/app/config.ts'
import errorHandler from './plugins/app/error-handler.ts'
import appPlugins from './plugins/app/index.ts'
import externalPlugins from './plugins/external/index.ts'
import routes from './routes/index.ts'

export interface GatewayOptions {
  /** Where log lines go (tests collect them); stdout by default. */
  logStream?: NodeJS.WritableStream
  /** Hooks of the caller's own on the root, in place before any route (tests add a slow send hook this way). */
  beforeRoutes?: (app: FastifyInstance) => void
  /** Who answers the crawler checks' DNS questions; node:dns by default (tests hand in a stub). */
  crawlerResolver?: CrawlerResolver
}

/**
 * The gateway as a Fastify app; listening is the caller's business. The
 * error handler comes first, as a route keeps the handler it was added
 * under (the static files' routes are added by an external plugin).
 */
export async function buildGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<FastifyInstance> {
  const logging = loggingOptions({ service: 'gateway', level: config.logLevel, format: config.logFormat }, options.logStream)
  const fastPath = noFastPathYet()
  const app = Fastify(gatewayServerOptions(config, logging, fastPath))
  await app.register(configPlugin, { config })
  await app.register(errorHandler)
  // Before every other hook and route: a target too long or headers too large are refused before anything reads them.
  app.addHook('onRequest', refuseOversizedRequest)
  await app.register(externalPlugins)
  await app.register(appPlugins, { fastPath, logController: logging.logController, crawlerResolver: options.crawlerResolver })
  options.beforeRoutes?.(app)
  await app.register(routes)
  app.log.debug({ api: API_PATH }, 'gateway ready')
  return app
}
