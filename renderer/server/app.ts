import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { serveBuildAssets } from './build-assets.ts'
import Fastify, { type FastifyInstance } from 'fastify'
import { RENDERER_BUILD_HEADER } from '../../shared/constants.ts'
import { BadRequestError } from '../../shared/errors.ts'
import { PROBE_ROUTE, loggingOptions } from '../../shared/logging.ts'
import { boundBy, histogram, serveMetrics, setUpMetrics } from '../../shared/metrics.ts'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION, RenderSigner } from '../../shared/render-protocol/index.ts'
import { logDroppedLinks } from '../../shared/link-href.ts'
import { memoisedSanitizer, withCleanRichText } from '../../shared/rich-text-sanitizer.ts'
import type { RendererConfig } from '../config.ts'
import { NotFoundError, sendErrorAnswer } from '../errors.ts'
import { GatewayClient } from './gateway-client.ts'
import { readInlineStylesheet } from './inline-stylesheet.ts'
import { KeptRenderData } from './kept-render-data.ts'
import { RenderDataSource } from './render-data.ts'
import { readModulePreloads } from './module-preloads.ts'
import { SignatureCheck } from './render-signatures.ts'
import { INVALID_PATH, serveRenders } from './render-endpoint.ts'

const DEFAULT_STYLESHEET = '/styles.css'

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

/** The renderer: POST a page's path with its render request, answer with the HTML of that page (server/render-endpoint.ts). */
export async function buildRenderer(config: RendererConfig, options: RendererOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...loggingOptions({ service: 'renderer', level: config.logLevel, format: config.logFormat }, options.logStream),
    return503OnClosing: true,
    // A path the router cannot decode (`/%ff`, its only framework error here) is refused like any other bad path.
    frameworkErrors: (_error, request, reply) => void sendErrorAnswer(new BadRequestError(INVALID_PATH), request, reply),
  })
  app.setErrorHandler(sendErrorAnswer)
  app.setNotFoundHandler((request, reply) => sendErrorAnswer(new NotFoundError(), request, reply))
  const gateway = new GatewayClient(config.gatewayUrl, config.payloadTimeoutMs)
  const assets = builtAssets(config.distDir)
  const modulePreloads = readModulePreloads(config.distDir, assets.clientEntry)
  const inlineStylesheet = readInlineStylesheet(config.distDir, assets.stylesheet)
  const client = {
    buildId: assets.id,
    buildPollIntervalMs: config.buildPollIntervalMs,
    ...(config.graphqlWsUrl ? { graphqlWsUrl: config.graphqlWsUrl } : {}),
  }
  app.addHook('onClose', () => gateway.close())
  // Every answer says it is this renderer's, and its render protocol: the gateway takes nothing else from a renderer's address.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header(RENDERER_BUILD_HEADER, assets.id).header(RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION)
    done()
  })
  const signer = config.renderSecret === undefined ? undefined : new RenderSigner(config.renderSecret)
  if (!signer) app.log.warn('RENDER_SECRET is unset: anyone who reaches this port can have a page rendered; keep the renderer on a private network')
  else if (!config.renderReplayCheck) app.log.warn('RENDER_REPLAY_CHECK is off: a captured render request can be replayed for ever; for benchmarks only')
  const signatures = signer ? new SignatureCheck(signer, { maxAgeMs: config.renderSignatureMaxAgeMs, replayCheck: config.renderReplayCheck }) : undefined
  // Rich text is sanitised where it enters, whoever sent it; text seen before costs a lookup.
  const sanitize = memoisedSanitizer(config.richTextMemoMaxBytes)
  // Link fields too (shared/link-href.ts): an address a link may not go to is dropped, and logged once.
  const dropped = logDroppedLinks((fields, message) => app.log.warn(fields, message))
  const clean = <T>(value: T): T => withCleanRichText(value, sanitize, dropped)

  const metrics = setUpMetrics(app, 'renderer')
  // The renderer is internal only: its one port serves its metrics too.
  serveMetrics(app, metrics.registry)
  const renderSeconds = histogram(metrics.registry, 'render_duration_seconds', 'Time from request to the last byte of a page, by status', ['status'])
  // Data of signed render requests, kept by their body's digest; references to it must be signed, so none without RENDER_SECRET.
  const renderData = new RenderDataSource({ kept: signer ? new KeptRenderData(config.keptRenderDataMaxBytes) : undefined, clean, registry: metrics.registry })
  renderData.acceptBodies(app)
  // The histogram's child per status, bound once.
  const renderSecondsOf = boundBy((status: number) => renderSeconds.labels(String(status)))

  // The build it belongs to and its render protocol: the gateways' probes read them (builds in service, where a page's
  // assets are, which renderers to send renders to).
  app.get('/healthz', PROBE_ROUTE, async () => ({ status: 'ok', build: assets.id, protocol: RENDER_PROTOCOL_VERSION }))
  // Its own build's client bundle, for gateways of another build (a roll, a rollback of one service) whose pages
  // from this renderer name files they lack: gateway/routes/foreign-assets.ts.
  await serveBuildAssets(app, config.distDir)
  app.get('/readyz', PROBE_ROUTE, async (_request, reply) => {
    const gatewayUp = await gateway.healthy()
    return reply
      .code(gatewayUp ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: gatewayUp ? 'ready' : 'not ready', checks: { gateway: gatewayUp ? 'ok' : 'unreachable' } })
  })

  serveRenders(app, {
    gateway,
    renderData,
    signatures,
    clean,
    assets,
    inlineStylesheet,
    modulePreloads,
    client,
    renderTimeoutMs: config.renderTimeoutMs,
    rendered: (status, seconds) => renderSecondsOf(status).observe(seconds),
  })
  return app
}
