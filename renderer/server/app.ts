import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { serveBuildAssets } from './build-assets.ts'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { BOT_USER_AGENT_PATTERN, CRAFT_TOKEN_HEADER, LIVE_PREVIEW_HEADER, PAYLOAD_UNAVAILABLE_MESSAGE, RENDERER_BUILD_HEADER } from '../../shared/constants.ts'
import { BadRequestError } from '../../shared/errors.ts'
import { PROBE_ROUTE, loggingOptions } from '../../shared/logging.ts'
import { boundBy, histogram, serveMetrics, setUpMetrics } from '../../shared/metrics.ts'
import { errorPayload } from '../../shared/payload.ts'
import { EMPTY_CONTENT_DIGEST, RenderSigner, contentDigest } from '../../shared/render-signature.ts'
import { memoisedSanitizer, withCleanRichText } from '../../shared/rich-text-sanitizer.ts'
import { type SitePath, splitSitePath } from '../../shared/site-path.ts'
import type { RendererConfig } from '../config.ts'
import { NotFoundError, UnsignedRenderError, sendErrorAnswer } from '../errors.ts'
import { type FetchedPayload, GatewayClient, type PayloadCall } from './gateway-client.ts'
import { readInlineStylesheet } from './inline-stylesheet.ts'
import { KeptRenderData, type ReadyRenderData } from './kept-render-data.ts'
import { RenderDataSource, RenderReference } from './render-data.ts'
import { type ModulePreloads, preloadsFor, readModulePreloads } from './module-preloads.ts'
import { SignatureCheck } from './render-signatures.ts'
import { isLivePreview } from './preview-bar.tsx'
import { type RenderOptions, renderComplete, renderPage } from './render.tsx'
import type { ClientConfig } from '../app/document-ids.ts'
import type { DeferredData } from '../app/screens/types.ts'

const DEFAULT_STYLESHEET = '/styles.css'
const INVALID_PATH = 'Invalid path'

export interface RendererOptions {
  logStream?: NodeJS.WritableStream
}

interface BuiltAssets {
  id: string
  stylesheet: string
  clientEntry: string | undefined
  /** The entry of Craft's live preview (client/live-preview.ts), named only by a page in it. */
  livePreviewEntry: string | undefined
}

/** The build this renderer belongs to (dist/build.json); unbuilt, plain styles and no browser bundle. */
function builtAssets(distDir: string): BuiltAssets {
  const file = join(distDir, 'build.json')
  if (!existsSync(file)) return { id: 'development', stylesheet: DEFAULT_STYLESHEET, clientEntry: undefined, livePreviewEntry: undefined }
  const build = JSON.parse(readFileSync(file, 'utf8')) as { id: string; assets?: Record<string, string> }
  return { id: build.id, stylesheet: build.assets?.stylesheet ?? DEFAULT_STYLESHEET, clientEntry: build.assets?.client, livePreviewEntry: build.assets?.livePreview }
}

/** What every page's render shares: the build's assets, the client's config, the gateway, the cleaning and the render timer. */
interface PageContext {
  config: RendererConfig
  gateway: GatewayClient
  assets: BuiltAssets
  modulePreloads: ModulePreloads
  inlineStylesheet: string | undefined
  client: ClientConfig
  clean: <T>(value: T) => T
  renderSecondsOf: (status: number) => { observe: (seconds: number) => void }
}

/** A page route: from the data the gateway handed over (given), or from what the renderer asks the gateway for. */
type RenderRoute = (request: FastifyRequest, reply: FastifyReply, site: SitePath, given: ReadyRenderData | undefined) => Promise<FastifyReply>

/** The renderer: GET any path, answer with the streamed HTML of that page. */
export async function buildRenderer(config: RendererConfig, options: RendererOptions = {}): Promise<FastifyInstance> {
  const app = createApp(config, options)
  const gateway = new GatewayClient(config.gatewayUrl, config.payloadTimeoutMs)
  const assets = builtAssets(config.distDir)
  const modulePreloads = readModulePreloads(config.distDir, assets.clientEntry)
  const inlineStylesheet = readInlineStylesheet(config.distDir, assets.stylesheet)
  const client = clientConfigOf(config, assets)
  app.addHook('onClose', () => gateway.close())
  markAnswers(app, assets.id)
  const signatures = signatureCheckOf(app, config)
  // Rich text is sanitised where it enters, whoever sent it; text seen before costs a lookup.
  const sanitize = memoisedSanitizer(config.richTextMemoMaxBytes)
  const clean = <T>(value: T): T => withCleanRichText(value, sanitize)

  const metrics = setUpMetrics(app, 'renderer')
  // The renderer is internal only: its one port serves its metrics too.
  serveMetrics(app, metrics.registry)
  const renderSeconds = histogram(metrics.registry, 'render_duration_seconds', 'Time from request to the last byte of a page, by status', ['status'])
  // Data of signed render requests, kept by their body's digest; references to it must be signed, so none without RENDER_SECRET.
  const renderData = new RenderDataSource({ kept: signatures ? new KeptRenderData(config.keptRenderDataMaxBytes) : undefined, clean, registry: metrics.registry })
  renderData.acceptBodies(app)
  // The histogram's child per status, bound once.
  const renderSecondsOf = boundBy((status: number) => renderSeconds.labels(String(status)))

  await serveProbes(app, gateway, assets, config.distDir)
  const renderRoute = pageRoute({ config, gateway, assets, modulePreloads, inlineStylesheet, client, clean, renderSecondsOf })
  serveRenders(app, signatures, renderData, renderRoute)
  return app
}

/** The Fastify instance with the renderer's logging and its one error answer. */
function createApp(config: RendererConfig, options: RendererOptions): FastifyInstance {
  const app = Fastify({
    ...loggingOptions({ service: 'renderer', level: config.logLevel, format: config.logFormat }, options.logStream),
    return503OnClosing: true,
    // A path the router cannot decode (`/%ff`, its only framework error here) is refused like any other bad path.
    frameworkErrors: (_error, request, reply) => void sendErrorAnswer(new BadRequestError(INVALID_PATH), request, reply),
  })
  app.setErrorHandler(sendErrorAnswer)
  app.setNotFoundHandler((request, reply) => sendErrorAnswer(new NotFoundError(), request, reply))
  return app
}

/** What the browser bundle is told of its build: one object, so each page's config script is written once per screen (document.tsx). */
function clientConfigOf(config: RendererConfig, assets: BuiltAssets): ClientConfig {
  return {
    buildId: assets.id,
    buildPollIntervalMs: config.buildPollIntervalMs,
    ...(config.graphqlWsUrl ? { graphqlWsUrl: config.graphqlWsUrl } : {}),
  }
}

/** Every answer says it is this renderer's: the gateway takes nothing else from a renderer's address. */
function markAnswers(app: FastifyInstance, buildId: string): void {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header(RENDERER_BUILD_HEADER, buildId)
    done()
  })
}

/** The check of the gateway's signatures when RENDER_SECRET is set (undefined without it), with a warning for each unsafe setting. */
function signatureCheckOf(app: FastifyInstance, config: RendererConfig): SignatureCheck | undefined {
  const signer = config.renderSecret === undefined ? undefined : new RenderSigner(config.renderSecret)
  if (!signer) app.log.warn('RENDER_SECRET is unset: anyone who reaches this port can have a page rendered; keep the renderer on a private network')
  else if (!config.renderReplayCheck) app.log.warn('RENDER_REPLAY_CHECK is off: a captured render request can be replayed for ever; for benchmarks only')
  return signer ? new SignatureCheck(signer, { maxAgeMs: config.renderSignatureMaxAgeMs, replayCheck: config.renderReplayCheck }) : undefined
}

/** The probes, and this build's own client bundle. */
async function serveProbes(app: FastifyInstance, gateway: GatewayClient, assets: BuiltAssets, distDir: string): Promise<void> {
  // The build it belongs to: the gateways' probes read it (builds in service, and where a page's assets are).
  app.get('/healthz', PROBE_ROUTE, async () => ({ status: 'ok', build: assets.id }))
  // Its own build's client bundle, for gateways of another build (a roll, a rollback of one service) whose pages
  // from this renderer name files they lack: gateway/routes/foreign-assets.ts.
  await serveBuildAssets(app, distDir)
  app.get('/readyz', PROBE_ROUTE, async (_request, reply) => {
    const gatewayUp = await gateway.healthy()
    return reply
      .code(gatewayUp ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: gatewayUp ? 'ready' : 'not ready', checks: { gateway: gatewayUp ? 'ok' : 'unreachable' } })
  })
}

type PageCall = Omit<PayloadCall, 'part'>

/** The page's payload: handed over, or fetched from the gateway and cleaned; without one, the payload of a 502 page. */
async function primaryPayload(context: PageContext, request: FastifyRequest, call: PageCall, given: ReadyRenderData | undefined): Promise<FetchedPayload> {
  if (given) return { payload: given.payload, cacheStatus: undefined }
  try {
    const answer = await context.gateway.payload({ ...call, part: 'primary' })
    return { ...answer, payload: context.clean(answer.payload) }
  } catch (error) {
    request.log.error({ err: error }, 'no payload from the gateway')
    return {
      cacheStatus: undefined,
      payload: errorPayload({
        path: call.path,
        fullPath: request.url,
        statusCode: 502,
        message: PAYLOAD_UNAVAILABLE_MESSAGE,
        preview: call.token !== undefined,
        siteUrl: '',
      }),
    }
  }
}

/** The page's deferred data, when it has any: handed over, or fetched from the gateway (null, and `failed()`, when that fails). */
function deferredPart(context: PageContext, request: FastifyRequest, call: PageCall, pending: boolean, given: ReadyRenderData | undefined) {
  let failed = false
  let deferred: DeferredData | null = null
  if (pending) {
    deferred = given?.deferred
      ? given.deferred
      : context.gateway.payload({ ...call, part: 'deferred' }).then(
          ({ payload: rest }) => {
            if (rest.status === 200) return context.clean(rest.data)
            failed = true
            return null
          },
          (error: unknown) => {
            request.log.warn({ err: error }, 'deferred data failed')
            failed = true
            return null
          },
        )
  }
  return { deferred, failed: () => failed }
}

/** The page route: its payload and deferred data, rendered whole when both are at hand, else streamed. */
function pageRoute(context: PageContext): RenderRoute {
  const { config, assets } = context
  return async (request, reply, site, given) => {
    const { rawPath: path, search } = site
    const header = request.headers[CRAFT_TOKEN_HEADER]
    const token = typeof header === 'string' ? header : undefined
    const call = { path, search, requestId: request.id, token }

    const fetched = await primaryPayload(context, request, call, given)
    const { payload } = fetched
    const handedDeferred = given?.deferred !== undefined
    const { deferred, failed } = deferredPart(context, request, call, payload.pending.length > 0, given)
    const userAgent = request.headers['user-agent'] ?? ''
    const livePreview = isLivePreview(payload, request.headers[LIVE_PREVIEW_HEADER])
    const started = performance.now()
    const options: RenderOptions = {
      payload,
      deferred,
      deferredFailed: failed,
      cacheStatus: fetched.cacheStatus,
      waitForAll: BOT_USER_AGENT_PATTERN.test(userAgent),
      stylesheet: assets.stylesheet,
      inlineStylesheet: context.inlineStylesheet,
      clientEntry: assets.clientEntry,
      livePreview,
      livePreviewEntry: livePreview ? assets.livePreviewEntry : undefined,
      modulePreloads: preloadsFor(context.modulePreloads, payload.screen),
      payloadJson: given?.payloadJson,
      client: context.client,
      timeoutMs: config.renderTimeoutMs,
      log: request.log,
    }
    const complete = payload.pending.length === 0 || handedDeferred
    if (!complete || !renderComplete(reply, options)) await renderPage(reply, options)
    context.renderSecondsOf(reply.statusCode).observe((performance.now() - started) / 1000)
    return reply
  }
}

/**
 * Renders only for the gateway (a fresh signature of its own, used once,
 * when RENDER_SECRET is set) and only a plain path of the site; anything
 * else is refused before anything is fetched or decoded. GET has no body:
 * the renderer fetches the data.
 */
function serveRenders(app: FastifyInstance, signatures: SignatureCheck | undefined, renderData: RenderDataSource, renderRoute: RenderRoute): void {
  const render = async (request: FastifyRequest, reply: FastifyReply, body: Buffer | RenderReference | undefined): Promise<FastifyReply> => {
    let digest: string | undefined
    if (signatures) {
      digest = body === undefined ? EMPTY_CONTENT_DIGEST : contentDigest(body instanceof RenderReference ? body.digest : body)
      const refusal = signatures.refusal(request, digest)
      if (refusal) {
        request.log.warn({ refusal }, 'render request without a valid signature refused')
        throw new UnsignedRenderError()
      }
    }
    const site = splitSitePath(request.url)
    if (!site) throw new BadRequestError(INVALID_PATH)
    return renderRoute(request, reply, site, body === undefined ? undefined : renderData.of(request, reply, body, digest))
  }

  app.get('/*', (request, reply) => render(request, reply, undefined))
  // The gateway's way: the page's data in the body (see render-request.ts), or a reference to data this renderer kept.
  app.post('/*', (request, reply) => render(request, reply, request.body instanceof RenderReference ? request.body : Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)))
}
