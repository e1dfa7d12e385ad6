import { type Readable, Transform, pipeline } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CACHE_STATUS_HEADER, CRAFT_TOKEN_HEADER, CSP_NONCE_HEADER, PAYLOAD_SUFFIX, PAYLOAD_UNAVAILABLE_MESSAGE, RENDER_OUTCOME_TRAILER, REQUEST_ID_HEADER } from '../../shared/constants.ts'
import { PAYLOAD_PART_PARAM, PAYLOAD_PARTS, type PayloadPart, errorPayload } from '../../shared/payload.ts'
import { encodeRenderRequest } from '../../shared/render-request.ts'
import { PAGE_QUERY_PARAM } from '../../shared/routes.ts'
import { type SitePath, splitSitePath } from '../../shared/site-path.ts'
import { cacheTagHeaders } from '../cache/cache-tags.ts'
import { headersForCache } from '../cache/page-cache-hits.ts'
import { type InlineSources, NO_INLINE_SOURCES, contentSecurityPolicy, forCaching, nonceSources } from '../content-security.ts'
import { fallbackPage } from '../fallback-page.ts'
import type { BuiltPayload, PayloadRequest } from '../payload/build-payload.ts'
import { dataJsonOf, payloadJson } from '../payload/payload-json.ts'
import { PRIVATE_NO_CACHE, PRIVATE_NO_STORE, notModified, publicCacheControl, sendWithEtag } from '../http-caching.ts'
import { PreviewLimit } from '../preview-limit.ts'
import type { RenderResponse } from '../renderer-pool.ts'
import { PENDING, settledAtOnce } from '../settled-at-once.ts'
import { PREVIEW_LINK_PARAMS, type ResolvedToken, clearTokenCookie, markPrivate, resolveToken, settleTokenCookie, withSiteToken } from '../tokens.ts'

/** Headers of the renderer's answer that reach the visitor. */
const PASSED_HEADERS = ['content-type', 'cache-control', 'x-robots-tag', 'content-language', 'link', 'vary']

/**
 * The address of a request that is no preview, without the names of a
 * preview link (`token`, `x-craft-preview`, `x-craft-live-preview`): such a
 * request gets the live page, under the key and from the render of the
 * address without them. Other parameters keep their bytes and order.
 */
function withoutPreviewLink(url: SitePath): SitePath {
  if (url.search === '') return url
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => {
      const name = pair.split('=', 1)[0] ?? ''
      return !PREVIEW_LINK_PARAMS.has(decodeURIComponent(name.replace(/\+/g, ' ')))
    })
  const search = kept.length === 0 ? '' : `?${kept.join('&')}`
  return search === url.search ? url : { ...url, search }
}

function sendFallback(reply: FastifyReply, statusCode: number, retryAfterSeconds?: number): FastifyReply {
  if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds))
  return reply
    .code(statusCode)
    .header('cache-control', PRIVATE_NO_STORE)
    .type('text/html; charset=utf-8')
    .send(fallbackPage(statusCode))
}

/**
 * What a payload is built from for a page and its query (without `part`): the
 * same for the payload route and a render request, so both give one payload.
 */
function payloadInput(path: string, params: URLSearchParams, context: ResolvedToken): Omit<PayloadRequest, 'part'> {
  const query = params.toString()
  return { path, fullPath: `${path}${query ? `?${query}` : ''}`, pageParam: params.get(PAGE_QUERY_PARAM) ?? undefined, context }
}

/** A render request's body, and whether its data shows a draft or an unpublished entry (undefined: the gateway cannot tell). */
interface PreparedRender {
  body: string
  showsPreview: boolean | undefined
}

/** Drops a render that will not be sent; undici reports the abort as an error, which is expected here. */
function discard(rendered: RenderResponse): void {
  if (Buffer.isBuffer(rendered.body)) return
  rendered.body.on('error', () => undefined)
  rendered.body.destroy()
}

/**
 * The body to send, and the whole of it once it has gone out: the stored page
 * is then the page the visitor got, with every header the send hooks added.
 * A stream passes through a recorder between the render and `reply.send`: it
 * records each chunk as the response reads it, so nothing flows before the
 * response is ready for it, however long the send hooks take.
 */
function recordedWhenSent(reply: FastifyReply, body: Buffer | Readable, done: (whole: Buffer) => void): Buffer | Readable {
  if (Buffer.isBuffer(body)) {
    reply.raw.once('close', () => done(body))
    return body
  }
  const chunks: Buffer[] = []
  const recorder = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      chunks.push(chunk)
      next(null, chunk)
    },
  })
  // The response read all of it: a visitor who left early (the recorder destroyed) leaves nothing to store.
  recorder.once('end', () => done(Buffer.concat(chunks)))
  // A failing render fails the recorder the response reads from; a visitor who leaves ends the render.
  pipeline(body, recorder, () => undefined)
  return recorder
}

/** Pages (proxied to a renderer, streamed through) and their payloads. */
export async function pageRoutes(app: FastifyInstance): Promise<void> {
  const csp = (inline: InlineSources): string => contentSecurityPolicy(inline, app.config.frameAncestors, app.config.connectSources, app.config.imageSources)
  // A fresh page's policy differs only in its nonce: the text around it is made once.
  const aroundNonce = csp(nonceSources('\u0000')).split('\u0000')
  const nonceCsp = (nonce: string): string => aroundNonce.join(nonce)
  const previewLimit = new PreviewLimit(app, app.config.rateLimit.previewMax, app.config.rateLimit.windowMs)

  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const url = splitSitePath(request.url)
    if (!url) {
      return request.url.endsWith(PAYLOAD_SUFFIX) || request.url.includes(`${PAYLOAD_SUFFIX}?`)
        ? reply.code(400).send({ errors: [{ message: 'Invalid path', extensions: { code: 'BAD_REQUEST' } }] })
        : sendFallback(reply, 400)
    }
    if (url.path.endsWith(PAYLOAD_SUFFIX)) return payload(request, reply, url)

    if (url.path.length > 1 && url.path.endsWith('/')) {
      const target = `/${url.rawPath.split('/').filter(Boolean).join('/')}`
      return reply.redirect(`${target}${url.search}`, 301)
    }
    return page(request, reply, url)
  }

  /** A failed answer built with the token cookie, because the CMS no longer accepts that token (expired, or from another CMS). */
  async function refusedCookie(context: ResolvedToken, statusCode: number): Promise<boolean> {
    if (context.source !== 'cookie' || context.token === undefined || statusCode < 500) return false
    return !(await app.content.acceptsToken(context.token, context.requestId))
  }

  async function payload(request: FastifyRequest, reply: FastifyReply, requested: SitePath): Promise<FastifyReply> {
    const pagePath = requested.path.slice(0, -PAYLOAD_SUFFIX.length) || '/'
    let context = resolveToken(request, app.config.craftToken)
    const url = context.preview ? requested : withoutPreviewLink(requested)
    const params = new URLSearchParams(url.search)
    const part = (params.get(PAYLOAD_PART_PARAM) ?? 'all') as PayloadPart
    if (!PAYLOAD_PARTS.includes(part)) {
      return reply.code(400).send({ errors: [{ message: `${PAYLOAD_PART_PARAM} must be one of ${PAYLOAD_PARTS.join(', ')}`, extensions: { code: 'BAD_REQUEST' } }] })
    }
    params.delete(PAYLOAD_PART_PARAM)
    if (context.preview) {
      const retryAfter = await previewLimit.refusedPayload(request)
      if (retryAfter !== undefined) return tooManyPreviews(reply, retryAfter, false)
    }
    const build = () => app.payloads.build({ ...payloadInput(pagePath, params, context), part })
    let built = await build()
    if (await refusedCookie(context, built.payload.status)) {
      request.log.info('the CMS refused the token cookie; dropped, the live payload instead')
      context = withSiteToken(context, app.config.craftToken)
      built = await build()
    }
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
      app.renderTags.record(request.id, built.tags)
      dropUnusableCookie(reply, context)
      return sendWithEtag(request, reply, payloadJson(body))
    }
    if (!context.preview) dropUnusableCookie(reply, context)
    return reply.send(body)
  }

  /**
   * A live answer to a request that carried a token cookie (which it then
   * ignored: one Craft would refuse, the site's default token, or one beside
   * a malformed token) clears it, and is then for this browser alone; one
   * that presented a malformed token is private and noindex like a preview.
   */
  function dropUnusableCookie(reply: FastifyReply, context: ResolvedToken): void {
    if (context.cookie !== 'none') clearTokenCookie(reply)
    if (context.malformed) markPrivate(reply)
    else if (context.cookie !== 'none' && String(reply.getHeader('cache-control') ?? '').startsWith('public')) reply.header('cache-control', PRIVATE_NO_CACHE)
  }

  /**
   * A stored page past its TTL, when no renderer could make it again (within
   * CACHE_STALE_IF_ERROR_MS): better than an error page. The browser may
   * keep it no longer than this answer; a shared cache not at all.
   */
  function sendStale(request: FastifyRequest, reply: FastifyReply, cacheKey: string, context: ResolvedToken): FastifyReply | undefined {
    const stale = app.pageCache.stale(cacheKey)
    if (!stale) return undefined
    app.pageCacheLookups('STALE')
    request.log.warn('no renderer answered; a stale page stands in')
    reply.code(stale.statusCode).headers(stale.headers).header(CACHE_STATUS_HEADER, 'STALE').header('etag', stale.etag).header('cache-control', PRIVATE_NO_CACHE)
    dropUnusableCookie(reply, context)
    return notModified(request, stale.etag) ? reply.code(304).send() : reply.send(stale.body)
  }

  function tooManyPreviews(reply: FastifyReply, retryAfterSeconds: number, page: boolean): FastifyReply {
    reply.header(CACHE_STATUS_HEADER, 'BYPASS')
    if (page) return sendFallback(reply, 429, retryAfterSeconds)
    return reply
      .code(429)
      .header('retry-after', String(retryAfterSeconds))
      .header('cache-control', PRIVATE_NO_STORE)
      .send({ errors: [{ message: `Too many preview requests; try again in ${retryAfterSeconds} s`, extensions: { code: 'RATE_LIMITED' } }] })
  }

  /**
   * The page's data for its render, assembled here (through the caches) so
   * the renderer need not ask for it: the primary part, and the deferred part
   * too when it is at hand at once. Data still on its way is left to the
   * renderer, which asks for it and streams it in when it comes.
   */
  async function renderRequest(request: FastifyRequest, url: SitePath, context: ResolvedToken): Promise<PreparedRender> {
    const input = payloadInput(url.path, new URLSearchParams(url.search), context)
    let primary: BuiltPayload
    try {
      primary = await app.payloads.build({ ...input, part: 'primary' })
    } catch (error) {
      request.log.error({ err: error }, 'the page data could not be assembled')
      const failed = errorPayload({ path: url.path, fullPath: input.fullPath, statusCode: 502, message: PAYLOAD_UNAVAILABLE_MESSAGE, preview: context.preview, siteUrl: '' })
      return { body: encodeRenderRequest(payloadJson(failed)), showsPreview: undefined }
    }
    const { payload } = primary
    if (context.preview) return previewRenderRequest(input, primary, context)
    // A preview page carries no cache tags: nothing keeps it.
    if (payload.status === 200 && !context.preview) app.renderTags.record(request.id, primary.tags)
    // Without a query cache the deferred data is never at hand, and asking for it here would ask the CMS twice.
    const deferredMayBeCached = app.config.cache.queryCache && !context.preview
    const alone = { body: encodeRenderRequest(payloadJson(payload)), showsPreview: false }
    if (payload.pending.length === 0 || payload.status !== 200 || !deferredMayBeCached) return alone
    const deferred = await settledAtOnce(app.payloads.build({ ...input, part: 'deferred' }))
    if (deferred === PENDING || deferred === undefined || deferred.payload.status !== 200) return alone
    app.renderTags.record(request.id, deferred.tags)
    return { body: encodeRenderRequest(payloadJson(payload), dataJsonOf(deferred.payload.data)), showsPreview: false }
  }

  /**
   * The render request of a preview, and whether the page shows a draft or an
   * unpublished entry. When that decides the token cookie (a token from the
   * preview link or the cookie) and the primary part shows none, the deferred
   * part is fetched here and handed over: the cookie goes out with the
   * headers, before the renderer would have asked for it.
   */
  async function previewRenderRequest(input: Omit<PayloadRequest, 'part'>, primary: BuiltPayload, context: ResolvedToken): Promise<PreparedRender> {
    const { payload } = primary
    const alone = encodeRenderRequest(payloadJson(payload))
    if (payload.status >= 500) return { body: alone, showsPreview: undefined }
    if (primary.showsPreview || payload.pending.length === 0) return { body: alone, showsPreview: primary.showsPreview }
    if (context.source !== 'query' && context.source !== 'cookie') return { body: alone, showsPreview: undefined }
    const deferred = await app.payloads.build({ ...input, part: 'deferred' }).catch(() => undefined)
    if (deferred === undefined || deferred.payload.status !== 200) return { body: alone, showsPreview: undefined }
    return { body: encodeRenderRequest(payloadJson(payload), dataJsonOf(deferred.payload.data)), showsPreview: deferred.showsPreview }
  }

  async function page(request: FastifyRequest, reply: FastifyReply, requested: SitePath): Promise<FastifyReply> {
    let context = resolveToken(request, app.config.craftToken)
    const url = context.preview ? requested : withoutPreviewLink(requested)
    if (context.preview) {
      const retryAfter = await previewLimit.refusedPage(request)
      if (retryAfter !== undefined) return tooManyPreviews(reply, retryAfter, true)
      previewLimit.rendering(request)
      reply.raw.once('close', () => previewLimit.done(request))
    }
    // Whether the render's data shows a draft or an unpublished entry; undefined when the gateway cannot tell.
    let shows: boolean | undefined
    const cacheKey = `${url.rawPath}${url.search}`
    const useCache = app.config.cache.pageCache && !context.preview
    // Its answer is marked noindex for this request alone: read from the cache, never stored.
    const storable = useCache && !context.malformed
    const ticket = app.pageCache.ticket()
    const render = (): Promise<RenderResponse> => {
      const headers: Record<string, string> = { [REQUEST_ID_HEADER]: request.id, accept: 'text/html' }
      const userAgent = request.headers['user-agent']
      if (userAgent) headers['user-agent'] = userAgent
      if (context.preview && context.token) headers[CRAFT_TOKEN_HEADER] = context.token
      const path = `${url.rawPath}${url.search}`
      shows = undefined
      const started = app.config.renderWithPayload
        ? renderRequest(request, url, context).then((prepared) => {
            shows = prepared.showsPreview
            return app.renderers.render(path, headers, prepared.body)
          })
        : app.renderers.render(path, headers)
      started.catch(() => undefined)
      return started
    }
    const abandon = (rendering: Promise<RenderResponse> | undefined): void => {
      rendering?.then(discard, () => undefined)
    }

    // Rules at hand (cached) decide before any render starts; when the CMS must
    // be asked, the render starts alongside, so a slow CMS costs the page one
    // upstream timeout, not two in a row.
    const lookup = app.redirects.match(url.path, context, request.log)
    const rendering = (await settledAtOnce(lookup)) === PENDING ? render() : undefined
    const redirect = await lookup
    if (redirect) {
      abandon(rendering)
      return reply.redirect(redirect.to, redirect.statusCode)
    }

    if (useCache) {
      const cached = app.pageCache.get(cacheKey)
      app.pageCacheLookups(cached ? 'HIT' : 'MISS')
      if (cached) {
        abandon(rendering)
        reply.code(cached.statusCode).headers(cached.headers).header(CACHE_STATUS_HEADER, 'HIT').header('etag', cached.etag)
        dropUnusableCookie(reply, context)
        return notModified(request, cached.etag) ? reply.code(304).send() : reply.send(cached.body)
      }
    }

    let rendered
    try {
      rendered = await (rendering ?? render())
      if (await refusedCookie(context, rendered.statusCode)) {
        request.log.info('the CMS refused the token cookie; dropped, the live page instead')
        discard(rendered)
        context = withSiteToken(context, app.config.craftToken)
        rendered = await render()
      }
    } catch (error) {
      request.log.error({ err: error }, 'no renderer could render the page')
      return (useCache && sendStale(request, reply, cacheKey, context)) || sendFallback(reply, 503)
    }
    if (useCache && rendered.statusCode >= 500) {
      const stale = sendStale(request, reply, cacheKey, context)
      if (stale) {
        discard(rendered)
        return stale
      }
    }
    const passed: Record<string, string> = {}
    for (const name of PASSED_HEADERS) {
      const value = rendered.headers[name]
      if (typeof value === 'string') passed[name] = value
    }
    const nonce = rendered.headers[CSP_NONCE_HEADER]
    reply.code(rendered.statusCode).headers(passed)
    reply.header('content-security-policy', typeof nonce === 'string' ? nonceCsp(nonce) : csp(NO_INLINE_SOURCES))
    if (context.preview) {
      app.pageCacheLookups('BYPASS')
      markPrivate(reply)
      reply.header(CACHE_STATUS_HEADER, 'BYPASS')
      // A failed render may mean Craft refused the token: no cookie that would then fail every page.
      settleTokenCookie(reply, context, shows, rendered.statusCode < 500)
    } else {
      reply.header(CACHE_STATUS_HEADER, useCache && rendered.statusCode === 200 ? 'MISS' : 'BYPASS')
      reply.header('cache-control', rendered.statusCode === 200 ? PRIVATE_NO_CACHE : PRIVATE_NO_STORE)
      dropUnusableCookie(reply, context)
      // The payloads of the render so far (a streamed page's deferred ones may follow): the stored page gets them all.
      const whole = Buffer.isBuffer(rendered.body)
      if (rendered.statusCode === 200) {
        reply.headers(cacheTagHeaders(whole && !storable ? app.renderTags.take(request.id) : app.renderTags.peek(request.id)))
      }
      if (storable && rendered.statusCode === 200) {
        const { trailers } = rendered
        return reply.send(recordedWhenSent(reply, rendered.body, (body) => {
          // A page rendered whole says so in a header, a streamed one in its trailer.
          const outcome = trailers[RENDER_OUTCOME_TRAILER] ?? rendered.headers[RENDER_OUTCOME_TRAILER]
          if (outcome !== 'complete') {
            request.log.warn({ outcome: outcome ?? 'unknown' }, 'degraded render; not cached')
            return
          }
          const { html, inline } = forCaching(body.toString('utf8'), typeof nonce === 'string' ? nonce : undefined)
          const cacheControl = publicCacheControl(app.config.cache.pageTtlMs, app.config.cache.staleWhileRevalidateMs)
          const headers = { ...headersForCache(reply.getHeaders()), ...passed, 'cache-control': cacheControl, 'content-security-policy': csp(inline) }
          const store = (tags: readonly string[]): void => app.pageCache.store(ticket, cacheKey, 200, { ...headers, ...cacheTagHeaders(tags) }, Buffer.from(html), tags)
          const recorded = app.renderTags.take(request.id)
          if (recorded.length > 0) store(recorded)
          // No payload of this render came through this gateway (the renderer asked another): the caches know the tags.
          else app.payloads.pageTags(url.path, url.search, context).then(store, (error: unknown) => request.log.warn({ err: error }, 'tags of the page unknown; not cached'))
        }))
      }
    }
    return reply.send(rendered.body)
  }

  app.get('/*', handler)
}
