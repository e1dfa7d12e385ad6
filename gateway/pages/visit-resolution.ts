import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { LIVE_PREVIEW_HEADER } from '../../shared/constants.ts'
import { pageAddress } from '../../shared/page-address.ts'
import type { SitePath } from '../../shared/site-path.ts'
import { previewRefused } from '../preview/preview-limit.ts'
import { PREVIEW_LINK_PARAMS, type ResolvedToken, resolveToken } from '../preview/tokens.ts'
import { PageVisit, type VisitOrigin } from './page-visit.ts'

/** A visitor's request as the origin of its visit: its work is its client's, and ends when its response closes. */
export function visitorOrigin(request: FastifyRequest, reply: FastifyReply): VisitOrigin {
  // callerOf's fields (admission/admission.ts) and the visit's in one object: a spread of callerOf's cost a second one per page.
  return {
    id: request.id,
    client: request.client,
    crawler: request.crawler,
    // A response closes once: `on` spares the wrapper `once` makes.
    onEnd: (done) => reply.raw.on('close', done),
    log: request.log,
    address: request.url,
    userAgent: request.headers['user-agent'],
    livePreview: request.headers[LIVE_PREVIEW_HEADER] !== undefined,
  }
}

/**
 * The first stage: which token the page is for, and the address as far as
 * it changes the page (shared/page-address.ts). A preview is counted
 * against its client's limit (refused with 429), and stays counted until
 * its answer is done. A live page's visit is made at once, without a
 * promise: only a preview's waits for its limit.
 */
export function resolveVisit(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, requested: SitePath): PageVisit | Promise<PageVisit> {
  const { config } = app
  const context = resolveToken(request, config.craftToken)
  // A preview keeps its link's parameters; anything else is the live page, as if they were absent.
  const url = pageAddress(requested, app.payloads.routes, context.preview ? PREVIEW_LINK_PARAMS : undefined)
  if (context.preview) return previewVisit(app, request, reply, url, context)
  const useCache = config.cache.pageCache
  // Its answer is marked noindex for this request alone: read from the cache, never stored.
  const storable = useCache && !context.malformed
  return new PageVisit(visitorOrigin(request, reply), { url, context, useCache, storable, ticket: app.pageCache.ticket() })
}

/** A preview's visit, once its client's limit let it in: never answered from the page cache, nor stored. */
async function previewVisit(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, url: SitePath, context: ResolvedToken): Promise<PageVisit> {
  const retryAfter = await app.previewLimit.refusedPage(request)
  if (retryAfter !== undefined) throw previewRefused(reply, retryAfter)
  app.previewLimit.rendering(request)
  reply.raw.once('close', () => app.previewLimit.done(request))
  return new PageVisit(visitorOrigin(request, reply), { url, context, useCache: false, storable: false, ticket: app.pageCache.ticket() })
}
