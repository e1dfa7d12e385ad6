import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { BOT_USER_AGENT_PATTERN, CRAFT_TOKEN_HEADER, LIVE_PREVIEW_HEADER } from '../../shared/constants.ts'
import { BadRequestError } from '../../shared/errors.ts'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION, contentDigest, speaksThisVersion } from '../../shared/render-protocol/index.ts'
import { type SitePath, splitSitePath } from '../../shared/site-path.ts'
import type { ClientConfig } from './document.tsx'
import { NotFoundError, RenderProtocolMismatchError, UnsignedRenderError } from '../errors.ts'
import type { GatewayClient } from './gateway-client.ts'
import type { ReadyRenderData } from './kept-render-data.ts'
import { type ModulePreloads, preloadsFor } from './module-preloads.ts'
import { isLivePreview } from './preview-bar.tsx'
import { type RenderDataSource, RenderReference } from './render-data.ts'
import type { SignatureCheck } from './render-signatures.ts'
import { renderComplete, renderPage } from './render.tsx'
import type { DeferredData } from '../app/screens/types.ts'

export const INVALID_PATH = 'Invalid path'

/** What the render endpoint renders with: set up once by the app. */
export interface RenderEndpoint {
  gateway: GatewayClient
  renderData: RenderDataSource
  signatures: SignatureCheck | undefined
  clean: <T>(value: T) => T
  assets: { stylesheet: string; clientEntry: string | undefined; livePreviewEntry: string | undefined }
  inlineStylesheet: string | undefined
  modulePreloads: ModulePreloads
  client: ClientConfig
  renderTimeoutMs: number
  /** Told each page's status and time, for the render histogram. */
  rendered: (status: number, seconds: number) => void
}

/**
 * The page's deferred data: handed over, or asked of the gateway, whose
 * answer says its tags. `tags()` are those of everything rendered so far;
 * undefined when the data came without them.
 */
function deferredOf(endpoint: RenderEndpoint, log: FastifyBaseLogger, site: SitePath, given: ReadyRenderData, call: { requestId: string; token: string | undefined }) {
  let failed = false
  let fetchedTags: readonly string[] | undefined = []
  let deferred: DeferredData | null = null
  if (given.payload.pending.length > 0) {
    deferred =
      given.deferred ??
      endpoint.gateway.payload({ path: site.rawPath, search: site.search, ...call, part: 'deferred' }).then(
        ({ payload: rest, tags }) => {
          fetchedTags = tags
          if (rest.status === 200) return endpoint.clean(rest.data)
          failed = true
          return null
        },
        (error: unknown) => {
          log.warn({ err: error }, 'deferred data failed')
          failed = true
          return null
        },
      )
  }
  return {
    deferred,
    failed: () => failed,
    tags: (): readonly string[] | undefined => (fetchedTags === undefined ? undefined : fetchedTags.length === 0 ? given.tags : [...given.tags, ...fetchedTags]),
  }
}

/** A page from the data the gateway handed over, its deferred part asked of the gateway when it was not. */
async function renderWith(endpoint: RenderEndpoint, request: FastifyRequest, reply: FastifyReply, site: SitePath, given: ReadyRenderData): Promise<FastifyReply> {
  const header = request.headers[CRAFT_TOKEN_HEADER]
  const token = typeof header === 'string' ? header : undefined
  const { payload } = given
  const deferred = deferredOf(endpoint, request.log, site, given, { requestId: request.id, token })
  const userAgent = request.headers['user-agent'] ?? ''
  const livePreview = isLivePreview(payload, request.headers[LIVE_PREVIEW_HEADER])
  const started = performance.now()
  const { assets } = endpoint
  const options = {
    payload,
    deferred: deferred.deferred,
    deferredFailed: deferred.failed,
    tags: deferred.tags,
    cacheStatus: undefined,
    waitForAll: BOT_USER_AGENT_PATTERN.test(userAgent),
    stylesheet: assets.stylesheet,
    inlineStylesheet: endpoint.inlineStylesheet,
    clientEntry: assets.clientEntry,
    livePreview,
    livePreviewEntry: livePreview ? assets.livePreviewEntry : undefined,
    modulePreloads: preloadsFor(endpoint.modulePreloads, payload.screen),
    payloadJson: given.payloadJson,
    client: endpoint.client,
    timeoutMs: endpoint.renderTimeoutMs,
    log: request.log,
  }
  const complete = payload.pending.length === 0 || given.deferred !== undefined
  if (!complete || !renderComplete(reply, options)) await renderPage(reply, options)
  endpoint.rendered(reply.statusCode, (performance.now() - started) / 1000)
  return reply
}

/**
 * The render endpoint: POST of a page's path with its render request (its
 * data and their tags, or a reference to data this renderer kept), in this
 * release's render protocol. Renders only for the gateway (a fresh signature
 * of its own, used once, when RENDER_SECRET is set) and only a plain path
 * of the site; anything else is refused before anything is decoded. A
 * request of another protocol version (or none: a GET, the way of releases
 * before it) is refused first, so that a gateway of another release tries
 * another renderer (RENDER_PROTOCOL_MISMATCH_STATUS).
 */
export function serveRenders(app: FastifyInstance, endpoint: RenderEndpoint): void {
  const { signatures, renderData } = endpoint
  const refuseOtherProtocol = (request: FastifyRequest): void => {
    const said = request.headers[RENDER_PROTOCOL_HEADER]
    if (speaksThisVersion(said)) return
    request.log.warn({ protocol: said ?? null }, 'render request of another render protocol refused')
    throw new RenderProtocolMismatchError(typeof said === 'string' ? said.slice(0, 20) : '(none)', RENDER_PROTOCOL_VERSION)
  }
  const render = async (request: FastifyRequest, reply: FastifyReply, body: Buffer | RenderReference): Promise<FastifyReply> => {
    refuseOtherProtocol(request)
    let digest: string | undefined
    if (signatures) {
      digest = contentDigest(body instanceof RenderReference ? body.digest : body)
      const refusal = signatures.refusal(request, digest)
      if (refusal) {
        request.log.warn({ refusal }, 'render request without a valid signature refused')
        throw new UnsignedRenderError()
      }
    }
    const site = splitSitePath(request.url)
    if (!site) throw new BadRequestError(INVALID_PATH)
    return renderWith(endpoint, request, reply, site, renderData.of(request, reply, body, digest))
  }
  // A GET of a page was a render of the releases that fetched their own data: refused as another protocol.
  app.get('/*', async (request) => {
    refuseOtherProtocol(request)
    throw new NotFoundError()
  })
  app.post('/*', (request, reply) => render(request, reply, request.body instanceof RenderReference ? request.body : Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)))
}
