import type { FastifyInstance } from 'fastify'
import { CRAFT_TOKEN_HEADER, CSP_NONCE_HEADER, LIVE_PREVIEW_HEADER, REQUEST_ID_HEADER } from '../../shared/constants.ts'
import { RendererUnavailableError } from '../errors.ts'
import { refusedCookie, withSiteToken } from '../preview/tokens.ts'
import { type RenderResponse, discard } from '../renderers/renderer-pool.ts'
import { MissingPage } from './not-found-page.ts'
import type { PageVisit } from './page-visit.ts'
import { type PreparedRender, renderRequest } from './render-request.ts'

/** How a render ended, as the answer's stages need to know it. */
export type RenderOutcome =
  | { kind: 'page'; rendered: RenderResponse }
  | { kind: 'missing'; page: MissingPage }
  /** The renderer's own error page (5xx): the render failed, and the page goes out only when no stored one can stand in. */
  | { kind: 'error-page'; rendered: RenderResponse; error: Error }
  /** No renderer could render it, or one refused the render itself: nothing of it goes out. */
  | { kind: 'failed'; error: unknown; refusal: boolean }

/**
 * The render stage: the page's data assembled (through the caches) and sent
 * with the render request to a renderer, in the visit's client's render
 * slot. A live page whose data says it is missing is not rendered: the
 * stored 404 page stands for it (a MissingPage).
 */
export class RenderStage {
  constructor(private readonly app: FastifyInstance) {}

  /** Starts the visit's render (kept on the visit, for a lookup that runs alongside); a failure is the caller's to see. */
  start(visit: PageVisit): Promise<RenderResponse | MissingPage> {
    const { app } = this
    const { origin, url, context } = visit
    // What the renderer reads (shared/render-protocol/signature.ts), and the id that names the request in its logs: nothing more.
    const headers: Record<string, string> = { [REQUEST_ID_HEADER]: origin.id }
    if (origin.userAgent) headers['user-agent'] = origin.userAgent
    if (context.preview && context.token) headers[CRAFT_TOKEN_HEADER] = context.token
    if (context.preview && origin.livePreview) headers[LIVE_PREVIEW_HEADER] = '1'
    const path = `${url.rawPath}${url.search}`
    visit.showsPreview(undefined)
    // No renderer up (as its admission found, else asked now): the pool would refuse the render at once; the page's data is not gathered for it first.
    if (visit.noRendererUp || (!visit.admitted && app.renderers.noneUp())) return refusedAtOnce(new RendererUnavailableError())
    // Begun before its admission (beside a redirect lookup): the CMS calls of its data are its client's all the same.
    if (!visit.admitted) app.admission.gathering(origin)
    const sent = (prepared: PreparedRender): Promise<RenderResponse> | MissingPage => {
      visit.showsPreview(prepared.showsPreview)
      if (prepared.notFound && visit.useCache && visit.notFound === undefined) return new MissingPage(prepared.notFound)
      // A render that stalls gives way to the stored page, when there is one and a visitor waits for it (RENDER_STALL_MS).
      const standIn = (): boolean => !visit.refresh && visit.useCache && app.pageCache.stale(visit.cacheKey) !== undefined
      return app.admission.render(origin, () => app.renderers.render(path, headers, prepared.body, { standIn }))
    }
    // A kept render request is at hand at once: sent without waiting a turn for it.
    const prepared = renderRequest(app, origin, url, context)
    const started: Promise<RenderResponse | MissingPage> = prepared instanceof Promise ? prepared.then<RenderResponse | MissingPage>(sent) : Promise.resolve<RenderResponse | MissingPage>(sent(prepared))
    started.catch(() => undefined)
    return started
  }

  /** The visit's render (the one started already, else a new one), made again with the site's token when the CMS refused the token cookie. */
  async render(visit: PageVisit): Promise<RenderOutcome> {
    let rendered: RenderResponse | MissingPage
    try {
      rendered = await (visit.rendering ?? this.start(visit))
      visit.rendersAlongside(undefined)
      if (rendered instanceof MissingPage) return { kind: 'missing', page: rendered }
      // Only a failed render may mean the CMS refused the token cookie: a page that rendered asks nothing.
      if (rendered.statusCode >= 500 && (await refusedCookie(this.app.content, visit.context, rendered.statusCode))) {
        visit.origin.log.info('the CMS refused the token cookie; dropped, the live page instead')
        discard(rendered)
        visit.useContext(withSiteToken(visit.context, this.app.config.craftToken))
        rendered = await this.start(visit)
        if (rendered instanceof MissingPage) return { kind: 'missing', page: rendered }
      }
    } catch (error) {
      return { kind: 'failed', error, refusal: false }
    }
    return judged(rendered, visit)
  }
}

function refusedAtOnce(error: Error): Promise<never> {
  const refused = Promise.reject(error)
  refused.catch(() => undefined)
  return refused
}

/**
 * Every page a renderer writes has its CSP nonce; an answer without one is
 * the renderer's own refusal (403 for a signature that expired on the way,
 * 400, 415), never the page's: it fails the render like a 5xx, and neither
 * goes to the visitor nor drops a stored page.
 */
function judged(rendered: RenderResponse, visit: PageVisit): RenderOutcome {
  if (rendered.statusCode >= 500) return { kind: 'error-page', rendered, error: new Error(`the renderer answered ${rendered.statusCode}`) }
  if (rendered.headers[CSP_NONCE_HEADER] !== undefined) return { kind: 'page', rendered }
  visit.origin.log.warn({ status: rendered.statusCode }, 'the renderer refused the render; no page')
  discard(rendered)
  return { kind: 'failed', error: new Error(`the renderer refused the render: ${rendered.statusCode}`), refusal: true }
}
