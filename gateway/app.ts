import { existsSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join } from 'node:path'
import { constants as zlib } from 'node:zlib'
import fastifyCompress from '@fastify/compress'
import fastifyCookie from '@fastify/cookie'
import fastifyHelmet from '@fastify/helmet'
import fastifyRateLimit from '@fastify/rate-limit'
import fastifyStatic from '@fastify/static'
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify'
import { Gauge, type Registry } from 'prom-client'
import { API_PATH, REQUEST_ID_HEADER } from '../shared/constants.ts'
import { loggingOptions } from '../shared/logging.ts'
import { counter, histogram, setUpMetrics } from '../shared/metrics.ts'
import { createOperations } from '../shared/operations.ts'
import { createRouteTable } from '../shared/routes.ts'
import { type BuildInfo, loadBuildInfo } from './build-info.ts'
import { cacheStatusOrBypass } from './cache/cache-status.ts'
import { PageCache } from './cache/page-cache.ts'
import { createPageCacheHits, serverWithPageCacheHits } from './cache/page-cache-hits.ts'
import { purgeLocally } from './cache/purge-locally.ts'
import { type CacheStatus, QueryCache } from './cache/query-cache.ts'
import type { SharedTier } from './cache/shared-tier.ts'
import type { GatewayConfig } from './config.ts'
import { defaultContentSecurityPolicy } from './content-security.ts'
import { CraftClient } from './craft/client.ts'
import { ContentService } from './craft/content-service.ts'
import { CraftSchema } from './craft/craft-schema.ts'
import { setUpDrain } from './drain.ts'
import { clientErrorHandler, errorBody, frameworkErrorHandler, sendError } from './error-answers.ts'
import { embeddedAssets, volumeUrl } from './embedded-cms/assets.ts'
import { ContentStore } from './embedded-cms/content-store.ts'
import { type EmbeddedCmsListener, startEmbeddedCmsListener } from './embedded-cms/listener.ts'
import { liveUpdates } from './embedded-cms/live-updates.ts'
import { UpstreamUnavailableError, isCodedUpstreamError } from './errors.ts'
import { setUpInternalListener } from './internal-listener.ts'
import { PayloadBuilder } from './payload/build-payload.ts'
import { RenderTags } from './payload/render-tags.ts'
import { Redirects } from './redirects.ts'
import { RendererPool } from './renderer-pool.ts'
import { apiRoutes } from './routes/api.ts'
import { buildRoutes } from './routes/builds.ts'
import { setUpDevReload } from './routes/dev-reload.ts'
import { healthRoutes } from './routes/health.ts'
import { pageRoutes } from './routes/pages.ts'
import { purgeRoutes } from './routes/purge.ts'
import { seoRoutes } from './routes/seo.ts'
import { isHttps, trustFunction } from './trust-proxy.ts'

declare module 'fastify' {
  interface FastifyInstance {
    config: GatewayConfig
    content: ContentService
    cache: QueryCache
    /** /api's answers, apart from the pages' data (in this gateway's memory only). */
    apiCache: QueryCache
    payloads: PayloadBuilder
    renderers: RendererPool
    build: BuildInfo
    pageCache: PageCache
    redirects: Redirects
    pageCacheLookups: (result: CacheStatus) => void
    /** The shared cache tier on Redis; undefined without REDIS_URL. */
    sharedCache: SharedTier | undefined
    renderTags: RenderTags
    /** What Craft's schema accepts: its naming, and the operations it would refuse. */
    craftSchema: CraftSchema
    /** The embedded content API on its own loopback listener, once the gateway is ready; undefined with a real Craft. */
    embeddedCmsUrl: URL | undefined
  }
}

const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains'
/** The catch-all route of pages and payloads (routes/pages.ts), as metrics label it. */
const PAGE_ROUTE = '/*'

export interface GatewayOptions {
  /** Where log lines go (tests collect them); stdout by default. */
  logStream?: NodeJS.WritableStream
  /** Hooks of the caller's own on the root, in place before any route (tests add a slow send hook this way). */
  beforeRoutes?: (app: FastifyInstance) => void
}

/** The Redis tier and its metrics; loaded only when REDIS_URL is set. */
async function startSharedTier(
  config: GatewayConfig,
  url: URL,
  app: FastifyInstance,
  registry: Registry,
  onPurge: (tags: readonly string[] | undefined) => void,
): Promise<SharedTier> {
  const { SharedTier } = await import('./cache/shared-tier.ts')
  const lookups = counter(registry, 'shared_cache_lookups_total', 'Lookups in the shared cache tier (Redis) by result (hit, miss, error)', ['result'])
  const errors = counter(registry, 'redis_errors_total', 'Failed Redis commands and connection errors', [])
  const tier = new SharedTier({
    url,
    commandTimeoutMs: config.redis.commandTimeoutMs,
    lockMs: config.redis.lockMs,
    keyPrefix: config.redis.keyPrefix,
    entryLifetimeMs: config.cache.ttlMs + Math.max(config.cache.staleWhileRevalidateMs, config.cache.staleIfErrorMs),
    log: app.log,
    onPurge,
    onLookup: (result) => lookups.inc({ result }),
    onCommandError: () => errors.inc(),
  })
  new Gauge({
    name: 'redis_up',
    help: '1 while both Redis connections (commands, purge channel) are up',
    registers: [registry],
    collect() {
      this.set(tier.up ? 1 : 0)
    },
  })
  return tier
}

/** The gateway as a Fastify app; listening is the caller's business. */
export async function buildGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<FastifyInstance> {
  const pageCache = new PageCache({
    maxEntries: config.cache.pageMaxEntries,
    maxBytes: config.cache.pageMaxBytes,
    ttlMs: config.cache.pageTtlMs,
    staleIfErrorMs: config.cache.staleIfErrorMs,
  })
  let answerFromPageCache: (request: IncomingMessage, response: ServerResponse) => boolean = () => false
  // One rule for Fastify's request.ip and .protocol and for the page-cache fast path.
  const trustProxy = trustFunction(config.trustProxy)
  const logging = loggingOptions({ service: 'gateway', level: config.logLevel, format: config.logFormat }, options.logStream)
  const app = Fastify({
    serverFactory: (handler, serverOptions) =>
      serverWithPageCacheHits(handler, serverOptions, (request, response) => answerFromPageCache(request, response), config.headersTimeoutMs),
    ...logging,
    bodyLimit: config.maxBodyBytes,
    routerOptions: { maxParamLength: 1024 },
    trustProxy,
    return503OnClosing: true,
    requestTimeout: config.requestTimeoutMs,
    // Errors raised before routing, in the gateway's own shapes and headers.
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
  })

  const metrics = setUpMetrics(app, 'gateway')
  setUpDrain(app)
  const cacheLookups = counter(metrics.registry, 'cache_lookups_total', 'Cache lookups by cache (query, api, page) and result (HIT, MISS, STALE, BYPASS)', ['cache', 'result'])
  const upstreamSeconds = histogram(metrics.registry, 'upstream_request_duration_seconds', 'Time of each call to the CMS', ['outcome'])
  const routes = createRouteTable(config.siteHandle)
  let embeddedCmsListener: EmbeddedCmsListener | undefined
  const upstreamUrl = (): URL => {
    const url = config.craftApiUrl ?? embeddedCmsListener?.url
    if (!url) throw new UpstreamUnavailableError()
    return url
  }
  const client = new CraftClient({
    url: upstreamUrl,
    schemaToken: config.craftSchemaToken,
    ...config.upstream,
    onTiming: (seconds, outcome) => upstreamSeconds.observe({ outcome }, seconds),
  })
  const sharedCache = config.redis.url ? await startSharedTier(config, config.redis.url, app, metrics.registry, (tags) => purgeLocally({ cache, apiCache, pageCache }, tags)) : undefined
  const cache = new QueryCache({
    ...config.cache,
    onRefreshError: (key, error) => app.log.warn({ key, err: error }, 'background refresh failed; serving stale'),
    ...(sharedCache ? { shared: sharedCache } : {}),
  })
  // Never in Redis: what strangers ask for stays in this gateway's memory, within its own bounds.
  const apiCache = new QueryCache({
    ...config.cache,
    maxEntries: config.cache.apiMaxEntries,
    maxBytes: config.cache.apiMaxBytes,
    onRefreshError: (key, error) => app.log.warn({ key, err: error }, 'background refresh of an /api answer failed; serving stale'),
  })
  // Counted several times per page: each (cache, result) pair's counter is bound once, not labelled per lookup.
  const boundLookups = new Map<string, { inc: () => void }>()
  const countLookup = (cacheName: 'query' | 'api' | 'page', result: CacheStatus): void => {
    const key = `${cacheName}:${result}`
    let bound = boundLookups.get(key)
    if (!bound) boundLookups.set(key, (bound = cacheLookups.labels({ cache: cacheName, result })))
    bound.inc()
  }
  // The embedded API's naming is known; a real Craft's is learnt from its schema once it answers.
  const configuredVersion = config.craftApiUrl ? config.craftVersion : config.embeddedCraftVersion
  const content = new ContentService(
    client,
    { pages: cache, api: apiCache },
    createOperations(config.siteHandle, configuredVersion),
    config.cache.queryCache,
    (result, audience) => countLookup(audience === 'api' ? 'api' : 'query', result),
  )
  const craftSchema = new CraftSchema({
    client,
    product: config.siteHandle,
    configuredVersion,
    introspection: config.craftIntrospection,
    retryMs: config.craftSchemaRetryMs,
    log: app.log,
    onOperations: (operations, unavailable) => content.useOperations(operations, unavailable),
  })
  app.decorate('craftSchema', craftSchema)
  // Craft is asked for its schema once the gateway listens (the embedded API listens from onReady on).
  app.addHook('onListen', async () => craftSchema.start())
  app.decorate('embeddedCmsUrl', { getter: () => embeddedCmsListener?.url })
  app.decorate('pageCacheLookups', (result: CacheStatus) => countLookup('page', result))

  app.decorate('config', config)
  app.decorate('cache', cache)
  app.decorate('apiCache', apiCache)
  app.decorate('content', content)
  app.decorate('payloads', new PayloadBuilder(routes, content, config.siteUrl.href.replace(/\/+$/, '')))
  app.decorate(
    'renderers',
    new RendererPool(config.rendererUrls, config.renderTimeoutMs, {
      probeIntervalMs: config.rendererProbeIntervalMs,
      dnsRefreshMs: config.rendererDnsRefreshMs,
      renderSecret: config.renderSecret,
      onMemberChange: (origin, up, reason) => app.log[up ? 'info' : 'warn']({ renderer: origin, reason }, up ? 'renderer back in turn' : 'renderer skipped'),
      onLookupFailed: (host, error) => app.log.warn({ host, err: error }, 'renderer host name does not resolve; keeping its last addresses'),
    }),
  )
  const redirects = new Redirects(config.redirects, content, config.siteHandle, config.craftToken, app.log)
  app.decorate('redirects', redirects)
  app.decorate('pageCache', pageCache)
  app.decorate('sharedCache', sharedCache)
  // A render's payload requests arrive within its timeout; twice that is ample.
  app.decorate('renderTags', new RenderTags(config.renderTimeoutMs * 2))
  if (config.cache.pageCache && config.cache.pageCacheFastPath) {
    // Bound once: labelling a counter on every hit costs more than the hit.
    const plainHits = metrics.requests.labels({ route: PAGE_ROUTE, method: 'GET', status: '200' })
    const pageHits = cacheLookups.labels({ cache: 'page', result: 'HIT' })
    // onHit runs synchronously inside answerHit: one variable times each hit.
    let hitStartedAt = 0
    const answerHit = createPageCacheHits({
      pageCache,
      accepting: () => !app.drain.draining,
      isHttps: (request) => isHttps(request, trustProxy),
      strictTransportSecurity: STRICT_TRANSPORT_SECURITY,
      onHit: (request, requestId, statusCode) => {
        if (statusCode === 200 && request.method === 'GET') plainHits.inc()
        else metrics.requests.inc({ route: PAGE_ROUTE, method: request.method ?? 'GET', status: String(statusCode) })
        pageHits.inc()
        logging.logController.completed(app.log, { requestId, req: request, res: { statusCode }, cache: 'HIT', responseTime: performance.now() - hitStartedAt })
      },
    })
    answerFromPageCache = (request, response) => {
      hitStartedAt = performance.now()
      return answerHit(request, response)
    }
  }
  app.decorate('build', loadBuildInfo(config.distDir, config.buildId, () => redirects.rules()))
  app.addHook('onClose', async () => {
    craftSchema.close()
    await Promise.all([client.close(), app.renderers.close(), sharedCache?.close()])
  })
  app.addHook('onSend', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id)
  })
  app.addHook('onSend', cacheStatusOrBypass)
  options.beforeRoutes?.(app)

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const statusCode = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500
    if (statusCode >= 500) request.log.error({ err: error }, 'request failed')
    else request.log.info({ code: error.code, statusCode }, error.message)
    // Of a 5xx only the content service's coded errors say what happened; anything else could show the gateway's insides.
    const message = statusCode >= 500 && !isCodedUpstreamError(error) ? 'Internal server error' : error.message
    const code = error.code ?? 'INTERNAL_SERVER_ERROR'
    if (statusCode >= 500 || statusCode === 404) return sendError(request, reply, statusCode, message, code)
    return reply.code(statusCode).send(errorBody(message, code))
  })
  // Every GET is a page (routes/pages.ts): what is left is another method on an address that has none.
  app.setNotFoundHandler((request, reply) => sendError(request, reply, 404, 'Not found', 'NOT_FOUND'))
  app.addHook('onRequestAbort', async (request) => {
    request.log.info('the client went away before the answer')
  })

  await app.register(fastifyHelmet, {
    // Pages get their own policy (pages.ts): nonces or hashes for the inline scripts of streamed SSR; every other answer the default one below.
    contentSecurityPolicy: false,
    // frame-ancestors in that policy lets the CMS frame the site for live preview; X-Frame-Options would not.
    frameguard: false,
    // Set below, and only over HTTPS.
    strictTransportSecurity: false,
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  })
  app.addHook('onSend', async (request, reply) => {
    if (request.protocol === 'https') reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY)
    if (!reply.hasHeader('content-security-policy')) {
      const html = String(reply.getHeader('content-type') ?? '').startsWith('text/html')
      reply.header('content-security-policy', defaultContentSecurityPolicy(html, config.frameAncestors))
    }
  })
  await app.register(fastifyCookie)
  await app.register(fastifyRateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(`Too many requests; try again in ${context.after}`), { statusCode: 429, code: 'RATE_LIMITED' }),
  })
  // Brotli or gzip for every text answer; each write is flushed so a streamed page stays streamed.
  await app.register(fastifyCompress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: 1024,
    zlibOptions: { level: 6, flush: zlib.Z_SYNC_FLUSH },
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 }, flush: zlib.BROTLI_OPERATION_FLUSH },
  })
  if (!config.craftApiUrl) {
    const store = ContentStore.fromDirectory(config.contentDir, config.siteHandle)
    // Asset URLs absolute on EMBEDDED_ASSET_URL, as Craft's are on its volume's base URL; the volume's files under /cms-assets/ on the public port.
    embeddedCmsListener = await startEmbeddedCmsListener(app, {
      store,
      port: config.embeddedCmsPort,
      schemaToken: config.craftSchemaToken,
      version: config.embeddedCraftVersion,
      assetUrl: volumeUrl(config.embeddedAssetUrl),
      logController: logging.logController,
    })
    await app.register(embeddedAssets, { root: config.embeddedAssetDir })
    await app.register(liveUpdates, { store, contentDir: config.contentDir })
  }
  await setUpInternalListener(app, metrics.registry, logging.logController)
  await app.register(healthRoutes)
  await app.register(apiRoutes)
  await app.register(purgeRoutes)
  await app.register(buildRoutes)
  if (config.devReloadFile !== undefined) setUpDevReload(app, config.devReloadFile)
  await app.register(seoRoutes, { routes })
  await app.register(fastifyStatic, { root: config.publicDir, wildcard: false, index: false, preCompressed: false })
  const clientDir = join(config.distDir, 'client')
  if (existsSync(clientDir)) {
    await app.register(fastifyStatic, {
      root: clientDir,
      prefix: '/assets/',
      // In dev the client is rebuilt under new names while the gateway runs: looked up per request, not listed once.
      wildcard: config.devReloadFile !== undefined,
      decorateReply: false,
      immutable: true,
      maxAge: 31_536_000_000,
      preCompressed: true,
    })
  }
  await app.register(pageRoutes)
  app.log.debug({ api: API_PATH }, 'gateway ready')
  return app
}
