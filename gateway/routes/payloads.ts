import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CACHE_STATUS_HEADER, PRIVATE_NO_STORE } from '../../shared/constants.ts'
import { pageAddress } from '../../shared/page-address.ts'
import { RENDER_FETCH_HEADER, RENDER_TAGS_HEADER, joinRenderTags } from '../../shared/render-protocol/index.ts'
import { PAYLOAD_PART_PARAM, PAYLOAD_PARTS, type PayloadPart, pagePathOfPayload } from '../../shared/payload.ts'
import type { SitePath } from '../../shared/site-path.ts'
import { overBudget } from '../admission/admission.ts'
import { cacheTagHeaders } from '../cache/cache-tags.ts'
import { BadRequestError } from '../errors.ts'
import { publicCacheControl, sendWithEtag } from '../http/http-caching.ts'
import { type BuiltPayload, payloadInput } from '../payload/build-payload.ts'
import { payloadJson } from '../payload/payload-json.ts'
import { previewRefused } from '../preview/preview-limit.ts'
import { PREVIEW_LINK_PARAMS, type ResolvedToken, dropUnusableCookie, markPrivate, refusedCookie, resolveToken, settleTokenCookie, withSiteToken } from '../preview/tokens.ts'

/**
 * `{path}/_payload.json` (routes/catch-all.ts): the data of a page, as the
 * renderer and the browser ask for it, whole or one part (`?part=`).
 */
export function payloadAnswers(app: FastifyInstance): (request: FastifyRequest, reply: FastifyReply, requested: SitePath) => Promise<FastifyReply> {
  /** The payload, built again with the site's token when the CMS refused the token cookie; its context with it. */
  async function build(request: FastifyRequest, reply: FastifyReply, requested: SitePath): Promise<{ built: BuiltPayload; context: ResolvedToken; part: PayloadPart }> {
    const pagePath = pagePathOfPayload(requested.path)
    let context = resolveToken(request, app.config.craftToken)
    const part = (new URLSearchParams(requested.search).get(PAYLOAD_PART_PARAM) ?? 'all') as PayloadPart
    if (!PAYLOAD_PARTS.includes(part)) throw new BadRequestError(`${PAYLOAD_PART_PARAM} must be one of ${PAYLOAD_PARTS.join(', ')}`)
    // The page's address as the page route makes it: only the parameters its route reads (a preview's link's too).
    const page = pageAddress({ ...requested, path: pagePath }, app.payloads.routes, context.preview ? PREVIEW_LINK_PARAMS : undefined)
    const params = new URLSearchParams(page.search)
    if (context.preview) {
      const retryAfter = await app.previewLimit.refusedPayload(request)
      if (retryAfter !== undefined) throw previewRefused(reply, retryAfter)
    }
    const retryAfter = app.admission.admitWork(request, reply)
    if (retryAfter !== undefined) throw overBudget(reply, retryAfter)
    const buildWith = (token: ResolvedToken) => app.payloads.build({ ...payloadInput(pagePath, params, token), part })
    let built = await buildWith(context)
    if (await refusedCookie(app.content, context, built.payload.status)) {
      request.log.info('the CMS refused the token cookie; dropped, the live payload instead')
      context = withSiteToken(context, app.config.craftToken)
      built = await buildWith(context)
    }
    return { built, context, part }
  }

  return async (request, reply, requested) => {
    const { built, context, part } = await build(request, reply, requested)
    const { payload: body, cacheStatus } = built
    reply.header(CACHE_STATUS_HEADER, context.preview ? 'BYPASS' : cacheStatus)
    reply.code(body.status).type('application/json; charset=utf-8')
    if (context.preview) {
      markPrivate(reply)
      // Only a payload of the whole page tells that a token shows nothing on it.
      const whole = part === 'all' || (part === 'primary' && body.pending.length === 0)
      settleTokenCookie(reply, context, built.showsPreview ? true : whole && body.status < 500 ? false : undefined, false)
    } else if (body.status !== 200) reply.header('cache-control', PRIVATE_NO_STORE)
    else {
      reply.header('cache-control', publicCacheControl(app.config.cache.ttlMs, app.config.cache.staleWhileRevalidateMs))
      reply.headers(cacheTagHeaders(built.tags))
      // A renderer's fetch of a page's data gets all the data's tags, to say in its answer with the rest of the page's.
      if (request.headers[RENDER_FETCH_HEADER] !== undefined) reply.header(RENDER_TAGS_HEADER, joinRenderTags(built.tags))
      dropUnusableCookie(reply, context)
      return sendWithEtag(request, reply, payloadJson(body))
    }
    if (!context.preview) dropUnusableCookie(reply, context)
    return reply.send(body)
  }
}
