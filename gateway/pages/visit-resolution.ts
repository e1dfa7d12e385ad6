import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { LIVE_PREVIEW_HEADER } from '../../shared/constants.ts'
import { pageAddress } from '../../shared/page-address.ts'
import type { SitePath } from '../../shared/site-path.ts'
import { callerOf } from '../admission/admission.ts'
import { previewRefused } from '../preview/preview-limit.ts'
import { PREVIEW_LINK_PARAMS, resolveToken } from '../preview/tokens.ts'
import { PageVisit, type VisitOrigin } from './page-visit.ts'

/** A visitor's request as the origin of its visit: its work is its client's, and ends when its response closes. */
export function visitorOrigin(request: FastifyRequest, reply: FastifyReply): VisitOrigin {
  return {
    ...callerOf(request, reply),
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
 * its answer is done.
 */
export async function resolveVisit(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, requested: SitePath): Promise<PageVisit> {
  const { config } = app
  const context = resolveToken(request, config.craftToken)
  // A preview keeps its link's parameters; anything else is the live page, as if they were absent.
  const url = pageAddress(requested, app.payloads.routes, context.preview ? PREVIEW_LINK_PARAMS : undefined)
  if (context.preview) {
    const retryAfter = await app.previewLimit.refusedPage(request)
    if (retryAfter !== undefined) throw previewRefused(reply, retryAfter)
    app.previewLimit.rendering(request)
    reply.raw.once('close', () => app.previewLimit.done(request))
  }
  const useCache = config.cache.pageCache && !context.preview
  // Its answer is marked noindex for this request alone: read from the cache, never stored.
  const storable = useCache && !context.malformed
  return new PageVisit(visitorOrigin(request, reply), { url, context, useCache, storable, ticket: app.pageCache.ticket() })
}
