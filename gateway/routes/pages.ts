import { randomUUID } from 'node:crypto'
import { type Readable, Transform, pipeline } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CACHE_STATUS_HEADER, CRAFT_TOKEN_HEADER, CSP_NONCE_HEADER, LIVE_PREVIEW_HEADER, PRIVATE_NO_STORE, RENDER_OUTCOME_TRAILER, REQUEST_ID_HEADER } from '../../shared/constants.ts'
import type { RedirectRule } from '../../shared/build-meta.ts'
import { localLocation } from '../../shared/local-location.ts'
import { pageAddress, pageKeyOf } from '../../shared/page-address.ts'
import type { SitePath } from '../../shared/site-path.ts'
import { overBudget } from '../admission/admission.ts'
import { cacheTagHeaders } from '../cache/cache-tags.ts'
import type { CachedPage } from '../cache/page-cache.ts'
import { headersForCache } from '../cache/page-cache-hits.ts'
import type { FlightLead } from '../cache/render-flights.ts'
import type { PageLock } from '../cache/shared-tier.ts'
import { RendererUnavailableError } from '../errors.ts'
import { NO_INLINE_SOURCES, forCaching, pagePolicies } from '../http/content-security.ts'
import { PRIVATE_NO_CACHE, notModified, publicCacheControl, weakEtag } from '../http/http-caching.ts'
import { payloadInput } from '../payload/build-payload.ts'
import { MissingPage, NOT_FOUND_PAGE_KEY, NOT_FOUND_RENDER_URL, type NotFoundFields, fillNotFound, notFoundTemplate } from '../pages/not-found-page.ts'
import { UNDECIDED } from '../pages/redirects.ts'
import { renderRequest } from '../pages/render-request.ts'
import { PENDING, settledAtOnce } from '../pages/settled-at-once.ts'
import { previewRefused } from '../preview/preview-limit.ts'
import { PREVIEW_LINK_PARAMS, type ResolvedToken, dropUnusableCookie, markPrivate, refusedCookie, resolveToken, settleTokenCookie, withSiteToken } from '../preview/tokens.ts'
import { answerHeaderTags, answerTags } from '../renderers/render-exchange.ts'
import { type RenderResponse, discard } from '../renderers/renderer-pool.ts'

/** Headers of the renderer's answer that reach the visitor. */
const PASSED_HEADERS = ['content-type', 'cache-control', 'x-robots-tag', 'content-language', 'link', 'vary']

/** One page request as the steps of its answer see it. */
interface PageVisit {
  request: FastifyRequest
  reply: FastifyReply
  /** The address as far as it changes the page (shared/page-address.ts): what is rendered and what the key is made of. */
  url: SitePath
  context: ResolvedToken
  cacheKey: string
  /** Answered with the one stored 404 page, these fields of its payload the visitor's own (pages/not-found-page.ts). */
  notFound: NotFoundFields | undefined
  /** Answered from the page cache: no preview, and the page cache on. */
  useCache: boolean
  /** Stored once complete: from the cache, and not marked noindex for this request alone (a malformed token). */
  storable: boolean
  /** The page cache's generation when the render began: a purge since then keeps its page out. */
  ticket: number
  /** The render started while the redirects were still being looked up. */
  rendering: Promise<RenderResponse | MissingPage> | undefined
  /** Whether the render's data shows a draft or an unpublished entry; undefined when the gateway cannot tell. */
  shows: boolean | undefined
  /** This request renders again a page already stored (it took the page's revalidation claim): no client pays for that. */
  revalidating: boolean
  /** Admitted to render (gateway/admission/): a preview before anything starts, a live page once the cache missed. */
  admitted: boolean
  /** This request's render is the one other misses of its key wait on (cache/render-flights.ts): told how it ended. */
  flight: FlightLead | undefined
  /** The rendered page went out whole and is being stored: its flight is settled once that is done. */
  storing: boolean
  /** The lock of this page's render across gateways (the shared tier): the page is stored there too, or the lock given up. */
  sharedLock: PageLock | undefined
  /** The gateway's own request that renders again a page a soft purge marked (refreshPurged): never answered from the cache. */
  refresh: boolean
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

/**
 * The render started alongside the redirect lookup, dropped when its page is
 * not needed after all; the misses waiting on it look again (`over`: the
 * page is stored, or redirects), or wait for another's (`again`).
 */
function abandonRender(visit: PageVisit, outcome: 'over' | 'again' = 'over'): void {
  visit.rendering?.then((rendered) => rendered instanceof MissingPage || discard(rendered), () => undefined)
  visit.rendering = undefined
  visit.flight?.settle({ kind: outcome })
}

function passedHeaders(rendered: RenderResponse): Record<string, string> {
  const passed: Record<string, string> = {}
  for (const name of PASSED_HEADERS) {
    const value = rendered.headers[name]
    if (typeof value === 'string') passed[name] = value
  }
  return passed
}

/** The header of the gateway's own refresh of a purged page (refreshPurged). */
const REFRESH_HEADER = 'x-gateway-refresh'

/**
 * Pages (routes/catch-all.ts), proxied to a renderer and streamed through:
 * the token resolved, a redirect, else the page cache, else a render, which
 * is stored once it is complete.
 */
export function pageAnswers(app: FastifyInstance): (request: FastifyRequest, reply: FastifyReply, requested: SitePath) => Promise<FastifyReply> {
  const { config } = app
  const policies = pagePolicies(config)
  const routes = app.payloads.routes
  /** Marks the gateway's own refresh of a purged page (refreshPurged): known to this process only, so no client can ask for renders with it. */
  const refreshToken = randomUUID()
  /** The render of the stored 404 page under way, settled once it is stored (or failed). */
  let notFoundRender: Promise<void> | undefined

  /** Which token the page is for; a preview is counted against its client's limit, and stays counted until its answer is done. */
  async function resolveVisit(request: FastifyRequest, reply: FastifyReply, requested: SitePath): Promise<PageVisit> {
    const context = resolveToken(request, config.craftToken)
    // A preview keeps its link's parameters; anything else is the live page, as if they were absent.
    const url = pageAddress(requested, routes, context.preview ? PREVIEW_LINK_PARAMS : undefined)
    if (context.preview) {
      const retryAfter = await app.previewLimit.refusedPage(request)
      if (retryAfter !== undefined) throw previewRefused(reply, retryAfter)
      app.previewLimit.rendering(request)
      reply.raw.once('close', () => app.previewLimit.done(request))
    }
    const useCache = config.cache.pageCache && !context.preview
    // Its answer is marked noindex for this request alone: read from the cache, never stored.
    const storable = useCache && !context.malformed
    const refresh = storable && request.headers[REFRESH_HEADER] === refreshToken
    return { request, reply, url, context, cacheKey: pageKeyOf(url), notFound: undefined, useCache, storable, ticket: app.pageCache.ticket(), rendering: undefined, shows: undefined, revalidating: false, admitted: false, flight: undefined, storing: false, sharedLock: undefined, refresh }
  }

  /**
   * Starts the page's render with the visit's token and its data; a failure
   * is the caller's to see. A live page
   * whose data says it is missing is not rendered: the stored 404 page
   * stands for it (a MissingPage).
   */
  function startRender(visit: PageVisit): Promise<RenderResponse | MissingPage> {
    const { request, url, context } = visit
    const headers: Record<string, string> = { [REQUEST_ID_HEADER]: request.id, accept: 'text/html' }
    const userAgent = request.headers['user-agent']
    if (userAgent) headers['user-agent'] = userAgent
    if (context.preview && context.token) headers[CRAFT_TOKEN_HEADER] = context.token
    // Live preview's mark as a header (a proxy's or a headless front end's): the renderer leaves the bar out and loads live preview's script.
    if (context.preview && request.headers[LIVE_PREVIEW_HEADER] !== undefined) headers[LIVE_PREVIEW_HEADER] = '1'
    const path = `${url.rawPath}${url.search}`
    visit.shows = undefined
    // No renderer up: the pool would refuse the render at once; the page's data is not gathered for it first.
    if (app.renderers.noneUp()) {
      const refused = Promise.reject(new RendererUnavailableError())
      refused.catch(() => undefined)
      return refused
    }
    const started = renderRequest(app, request, url, context).then<RenderResponse | MissingPage>((prepared) => {
      visit.shows = prepared.showsPreview
      if (prepared.notFound && visit.useCache && visit.notFound === undefined) return new MissingPage(prepared.notFound)
      return app.admission.render(request, visit.reply, () => app.renderers.render(path, headers, prepared.body))
    })
    started.catch(() => undefined)
    return started
  }

  /**
   * A redirect rule for the path. Rules at hand (cached) decide before any
   * render starts; when the CMS must be asked, the render starts alongside,
   * so a slow CMS costs the page one upstream timeout, not two in a row.
   * Says whether it redirected: a reply is a thenable that an await turns
   * into undefined once sent, so it is not what this resolves to (the page
   * went on to render after every redirect when it was).
   */
  async function redirected(visit: PageVisit): Promise<boolean> {
    const atOnce = visit.context.preview ? UNDECIDED : app.redirects.matchAtOnce(visit.url.path)
    const rule = atOnce === UNDECIDED ? await lookUpRedirect(visit) : atOnce
    if (!rule) return false
    // Decided on what is sent: a path of this site as one `/` and a page, and never the address asked for (a loop).
    const to = rule.to.startsWith('/') ? localLocation(rule.to) : rule.to
    if (to === visit.request.url) return false
    abandonRender(visit)
    // A page stored before the rule came is not served past its TTL while the path redirects.
    if (visit.useCache) app.pageCache.drop(visit.cacheKey)
    visit.reply.redirect(to, rule.statusCode)
    return true
  }

  /** The redirect rule from the cache or the CMS, the render started alongside when the CMS must be asked. */
  async function lookUpRedirect(visit: PageVisit): Promise<RedirectRule | undefined> {
    const lookup = app.redirects.match(visit.url.path, visit.context, visit.request.log)
    if ((await settledAtOnce(lookup)) !== PENDING) return lookup
    // Misses of one page that all find the rules unknown (a cold gateway, a purge of the redirects) start one render alongside, not one each.
    if (!coalesces(visit)) visit.rendering = startRender(visit)
    else if (lead(visit)) visit.rendering = startRender(visit)
    return lookup
  }

  /**
   * The stored page: fresh, or past its TTL while another request renders it
   * again (STALE). On a miss with such a page there, this request renders it
   * again, and the others get the stale page until its answer is over.
   */
  function answerFromCache(visit: PageVisit): FastifyReply | undefined {
    if (!visit.useCache) return undefined
    const { request, reply, cacheKey } = visit
    if (visit.refresh) {
      // Claimed by the visit that asked for this refresh: this request renders, unless a fresh page came meanwhile (another gateway's, a visitor's miss).
      const stored = app.pageCache.get(cacheKey)
      if (stored && !app.pageCache.isStale(stored)) {
        abandonRender(visit)
        return sendStored(visit, stored, 'HIT')
      }
      visit.revalidating = true
      return undefined
    }
    const cached = app.pageCache.get(cacheKey)
    const status = cached === undefined ? 'MISS' : app.pageCache.isStale(cached) ? 'STALE' : 'HIT'
    // Past its TTL or marked by a soft purge: this visitor gets it at once too, and one render in the background refreshes it.
    const purged = cached === undefined && visit.storable ? app.pageCache.refreshablePage(cacheKey) : undefined
    app.pageCacheLookups(purged ? 'STALE' : status)
    if (purged) {
      // Its refresh waits for its turn (PAGE_REFRESH_CONCURRENCY): meanwhile the stored page, as while it runs.
      const refreshing = app.pageRefreshes.has(cacheKey)
      const release = refreshing ? undefined : app.pageCache.claimRevalidation(cacheKey)
      if (refreshing || release) {
        abandonRender(visit)
        if (release) refreshPurged(visit, release)
        return sendStored(visit, purged, 'STALE')
      }
    }
    if (!cached) {
      const release = visit.storable ? app.pageCache.claimRevalidation(cacheKey) : undefined
      if (release) reply.raw.once('close', release)
      visit.revalidating = release !== undefined
      return undefined
    }
    abandonRender(visit)
    return sendStored(visit, cached, status === 'STALE' ? 'STALE' : 'HIT')
  }

  /**
   * A page past its TTL or marked stale by a soft purge: its visitor got it
   * at once, and this renders it again in the background, as a request of the gateway's own
   * (the same route, past the fast path, holding the page's claim), so that
   * no visitor waits for a render a purge caused. One per page at a time:
   * the claim keeps the others on the stored page until it is stored again.
   * At most PAGE_REFRESH_CONCURRENCY at once, PAGE_REFRESH_QUEUE more waiting
   * (cache/page-refreshes.ts); past that the page stays stale, and its next
   * request asks again. Its render is stored as a visitor's miss is: in this
   * gateway and, with the shared tier, in Redis (answerLive).
   */
  function refreshPurged(visit: PageVisit, release: () => void): void {
    const { request } = visit
    const url = request.url
    const host = request.headers.host ?? 'localhost'
    const log = request.log
    const refresh = (): Promise<void> =>
      app
        .inject({ method: 'GET', url, headers: { host, [REFRESH_HEADER]: refreshToken } })
        .then(
          (answer) => {
            if (answer.statusCode >= 500) log.warn({ statusCode: answer.statusCode, path: url }, 'refresh of a stale page failed; it stays stale')
          },
          (error: unknown) => log.warn({ err: error, path: url }, 'refresh of a stale page failed; it stays stale'),
        )
        .finally(release)
    const scheduled = app.pageRefreshes.schedule(visit.cacheKey, refresh)
    if (scheduled === 'refused' || scheduled === 'running') release()
  }

  /** A stored page as it was stored; the 404 page with the visitor's own fields, private as every error. */
  function sendStored(visit: PageVisit, page: CachedPage, status: 'HIT' | 'STALE', cacheControl?: string): FastifyReply {
    const { request, reply, notFound } = visit
    const body = notFound ? fillNotFound(page.body, notFound) : page.body
    const etag = notFound ? weakEtag(body) : page.etag
    reply.code(page.statusCode).headers(page.headers).header(CACHE_STATUS_HEADER, status).header('etag', etag)
    if (notFound) reply.header('cache-control', PRIVATE_NO_STORE)
    else if (cacheControl) reply.header('cache-control', cacheControl)
    dropUnusableCookie(reply, visit.context)
    return notModified(request, etag) ? reply.code(304).send() : reply.send(body)
  }

  /**
   * A live page known to be missing without a render (a path no route
   * takes, a bad slug or page number, an entry the cache knows is not
   * there): the stored 404 page, or its one render.
   */
  function answerKnownMissing(visit: PageVisit): Promise<FastifyReply> | FastifyReply | undefined {
    if (!visit.useCache) return undefined
    const input = payloadInput(visit.url.path, new URLSearchParams(visit.url.search), visit.context)
    const message = app.payloads.knownMissing(input)
    if (message === undefined) return undefined
    return answerNotFound(visit, { path: input.path, fullPath: input.fullPath, message })
  }

  /**
   * The visit answered with the stored 404 page. Without one, it is rendered
   * for NOT_FOUND_RENDER_URL once: 404s that come meanwhile wait for that
   * render, instead of each rendering the same page.
   */
  async function answerNotFound(visit: PageVisit, fields: NotFoundFields): Promise<FastifyReply> {
    abandonRender(visit)
    // The page is gone: one stored under its own address is not served past its TTL (nor stands in for it).
    if (visit.useCache) app.pageCache.drop(visit.cacheKey)
    visit.notFound = fields
    visit.url = NOT_FOUND_RENDER_URL
    visit.cacheKey = NOT_FOUND_PAGE_KEY
    if (notFoundRender !== undefined && app.pageCache.get(NOT_FOUND_PAGE_KEY) === undefined) await notFoundRender
    const stored = answerFromCache(visit)
    if (stored) return stored
    // The one render of the 404 page is work like any other: a client over its budget gets a stored one or 429.
    const answered = (async () => admitRender(visit) ?? renderOrStale(visit))()
    if (visit.storable && notFoundRender === undefined) {
      const settled = answered.then(
        () => undefined,
        () => undefined,
      )
      notFoundRender = settled
      void settled.then(() => {
        if (notFoundRender === settled) notFoundRender = undefined
      })
    }
    return answered
  }

  /**
   * A stored page past its TTL, when no renderer could make it again (within
   * CACHE_STALE_IF_ERROR_MS): better than an error page. The browser may
   * keep it no longer than this answer; a shared cache not at all.
   */
  function answerStale(visit: PageVisit): FastifyReply | undefined {
    const { request, reply } = visit
    const stale = visit.useCache ? app.pageCache.stale(visit.cacheKey) : undefined
    if (!stale) return undefined
    app.pageCacheLookups('STALE')
    request.log.warn('no renderer answered; a stale page stands in')
    return sendStored(visit, stale, 'STALE', PRIVATE_NO_CACHE)
  }

  /** Admission (gateway/admission/): a client over its work budget gets the stored page if there is one, else 429 with Retry-After. */
  function admitRender(visit: PageVisit): FastifyReply | undefined {
    if (visit.admitted) return undefined
    // No renderer up: the render fails at once without any work (startRender), so nothing is charged. The stored
    // page or the 503 page answers, and nginx takes a 503 to the next gateway; a 429 would end the visit here.
    if (app.renderers.noneUp()) return undefined
    visit.admitted = true
    const retryAfter = app.admission.admitRender(visit.request, visit.reply, visit.revalidating)
    if (retryAfter === undefined) return undefined
    // Another client's miss may render the page for the waiters.
    abandonRender(visit, 'again')
    const stale = answerStale(visit)
    if (stale) return stale
    throw overBudget(visit.reply, retryAfter)
  }

  /** Whether a miss of this visit takes part in the single flight of its key's renders: a page stored for everyone, not a preview. */
  function coalesces(visit: PageVisit): boolean {
    // A background refresh is one too: it leads its key's render, and with the shared tier takes the page from Redis or renders it for all (and stores it there).
    return config.cache.pageRenderWaitMs > 0 && visit.storable && (!visit.revalidating || visit.refresh)
  }

  /**
   * A live page from what is known or stored, else its render: one per page
   * key at a time in this gateway (cache/render-flights.ts). A miss while
   * another request renders the page waits for that render, for at most
   * PAGE_RENDER_WAIT_MS in all, and looks again. Waiting is no work: it is
   * charged nothing, and a waiter that renders after all is admitted and
   * charged as any miss. On a failed render the waiters share the failure;
   * past the bound they get the stale page if there is one (the render they
   * waited on is slow, theirs would be too), else render themselves (it may
   * be one renderer that hangs).
   */
  async function answerLive(visit: PageVisit): Promise<FastifyReply> {
    const waitUntil = performance.now() + config.cache.pageRenderWaitMs
    let mayWait = true
    let waited = false
    for (;;) {
      const known = answerKnownMissing(visit) ?? answerFromCache(visit)
      if (known) return known
      // A render already under way (started beside a redirect lookup, which leads when it can) is not thrown away to wait for another.
      const waiting = mayWait && visit.rendering === undefined && coalesces(visit) ? app.renderFlights.wait(visit.cacheKey, waitUntil - performance.now()) : undefined
      if (!waiting) break
      waited = true
      const outcome = await waiting
      if (outcome.kind === 'failed') {
        const stale = answerStale(visit)
        if (stale) return stale
        throw new RendererUnavailableError({ cause: outcome.error })
      }
      if (outcome.kind === 'timeout') {
        const stale = answerStale(visit)
        if (stale) return stale
      }
      // 'again': the render was cut short, not for the page's sake; wait for the next one (within the bound).
      if (outcome.kind !== 'again') mayWait = false
    }
    // What this render stores must postdate the purges that came while it waited.
    if (waited) visit.ticket = app.pageCache.ticket()
    // Whether the page came from another gateway: a sent reply is a thenable that an await would turn into undefined.
    if (coalesces(visit) && lead(visit) && (await answeredShared(visit, waitUntil))) return visit.reply
    const refused = admitRender(visit)
    if (refused) return refused
    return renderOrStale(visit)
  }

  /**
   * Across gateways (the shared tier on Redis): the page another gateway
   * stored, or is rendering (waited for within the same bound); else this
   * gateway takes the lock and renders it for all. A page from there is
   * stored here first, so this gateway's waiters find it. Asked before
   * admission: a page from another gateway is no work.
   */
  async function answeredShared(visit: PageVisit, waitUntil: number): Promise<boolean> {
    const tier = app.sharedCache
    if (!tier?.sharesPages) return false
    const { cacheKey } = visit
    const claim = await tier.claimPage(cacheKey)
    if (claim.kind === 'locked') {
      holdSharedLock(visit, claim.lock)
      return false
    }
    // A render under way already (started beside a redirect lookup) goes on rather than wait.
    const page = claim.kind === 'stored' ? claim.page : claim.kind === 'held' && visit.rendering === undefined ? await tier.waitForPage(cacheKey, waitUntil - performance.now()) : undefined
    if (!page) return false
    app.pageCache.store(visit.ticket, cacheKey, page.statusCode, page.headers, page.body, page.tags, Date.now() - page.storedAt)
    const stored = app.pageCache.get(cacheKey)
    // A purge here since the visit began keeps the page out: rendered again.
    if (!stored) return false
    abandonRender(visit, 'over')
    sendStored(visit, stored, 'HIT')
    return true
  }

  /** The lock is given up with the render's flight, unless the page was stored there before. */
  function holdSharedLock(visit: PageVisit, lock: PageLock): void {
    visit.sharedLock = lock
    const local = visit.flight
    if (!local) return lock.release()
    visit.flight = {
      settle: (outcome) => {
        lock.release()
        local.settle(outcome)
      },
      get settled() {
        return local.settled
      },
    }
  }

  /**
   * This visit's render is the one other misses of its key wait on, unless
   * one is under way already (false: then it renders on its own, or waits).
   */
  function lead(visit: PageVisit): boolean {
    if (visit.flight) return true
    const flight = app.renderFlights.lead(visit.cacheKey)
    if (!flight) return false
    visit.flight = flight
    // Any way the answer ends without saying how (its visitor left mid-stream, an error): the waiters may wait for a new render.
    // Late by one turn: a page sent whole is stored by a listener of the same event, and says so first.
    visit.reply.raw.once('close', () => setImmediate(() => visit.storing || flight.settle({ kind: 'again' })))
    return true
  }

  /** The render, made again with the site's token when the CMS refused the token cookie. */
  async function render(visit: PageVisit): Promise<RenderResponse | MissingPage> {
    let rendered = await (visit.rendering ?? startRender(visit))
    if (rendered instanceof MissingPage) return rendered
    if (await refusedCookie(app.content, visit.context, rendered.statusCode)) {
      visit.request.log.info('the CMS refused the token cookie; dropped, the live page instead')
      discard(rendered)
      visit.context = withSiteToken(visit.context, config.craftToken)
      rendered = await startRender(visit)
    }
    return rendered
  }

  /** The rendered page, or a stale one when no renderer could render it (or it failed); without one, the Dutch 503 page (plugins/app/error-handler.ts). */
  async function renderOrStale(visit: PageVisit): Promise<FastifyReply> {
    let rendered: RenderResponse | MissingPage
    try {
      rendered = await render(visit)
    } catch (error) {
      visit.flight?.settle({ kind: 'failed', error })
      const stale = answerStale(visit)
      if (!stale) throw new RendererUnavailableError({ cause: error })
      visit.request.log.error({ err: error }, 'no renderer could render the page')
      return stale
    }
    if (rendered instanceof MissingPage) {
      // The page's data says it is missing, as the payload cache now knows: the waiters find the stored 404 page (or its one render).
      visit.flight?.settle({ kind: 'over' })
      return answerNotFound(visit, rendered.fields)
    }
    // Every page a renderer writes has its CSP nonce; an answer without one is the renderer's own refusal (403 for a
    // signature that expired on the way, 400, 415), never the page's: it fails the render like a 5xx, and neither goes
    // to the visitor nor drops a stored page.
    const refusal = rendered.statusCode < 500 && rendered.headers[CSP_NONCE_HEADER] === undefined
    const failed = refusal || rendered.statusCode >= 500
    if (failed) visit.flight?.settle({ kind: 'failed', error: new Error(`the renderer answered ${rendered.statusCode}`) })
    const stale = failed ? answerStale(visit) : undefined
    if (refusal) visit.request.log.warn({ status: rendered.statusCode }, 'the renderer refused the render; no page')
    if (stale || refusal) discard(rendered)
    if (stale) return stale
    if (refusal) throw new RendererUnavailableError({ cause: new Error(`the renderer refused the render: ${rendered.statusCode}`) })
    return sendRendered(visit, rendered)
  }

  /** The renderer's page with the headers it passes on and its policy; a preview private, a live page with its cache tags. */
  function sendRendered(visit: PageVisit, rendered: RenderResponse): FastifyReply | Promise<FastifyReply> {
    const { request, reply, context } = visit
    const passed = passedHeaders(rendered)
    const nonce = rendered.headers[CSP_NONCE_HEADER]
    reply.code(rendered.statusCode).headers(passed)
    reply.header('content-security-policy', typeof nonce === 'string' ? policies.withNonce(nonce) : policies.withInline(NO_INLINE_SOURCES))
    if (context.preview) {
      app.pageCacheLookups('BYPASS')
      markPrivate(reply)
      reply.header(CACHE_STATUS_HEADER, 'BYPASS')
      // A failed render may mean Craft refused the token: no cookie that would then fail every page.
      settleTokenCookie(reply, context, visit.shows, rendered.statusCode < 500)
      return reply.send(rendered.body)
    }
    const stored = visit.notFound ? rendered.statusCode === 404 : rendered.statusCode === 200
    reply.header(CACHE_STATUS_HEADER, visit.useCache && stored ? 'MISS' : 'BYPASS')
    reply.header('cache-control', rendered.statusCode === 200 ? PRIVATE_NO_CACHE : PRIVATE_NO_STORE)
    dropUnusableCookie(reply, context)
    if (visit.notFound && stored) return sendNotFoundRendered(visit, rendered, passed)
    if (rendered.statusCode !== 200) {
      visit.flight?.settle({ kind: 'over' })
      // The page is gone (404, 410) or is another answer now: a stored one is not served past its TTL. A failure keeps it to stand in.
      if (visit.useCache && rendered.statusCode < 500) app.pageCache.drop(visit.cacheKey)
      return reply.send(rendered.body)
    }
    // The tags the render's answer says so far (a streamed page's deferred data may add some): the stored page gets them all.
    reply.headers(cacheTagHeaders(answerHeaderTags(rendered) ?? []))
    if (!visit.storable) return reply.send(rendered.body)
    return reply.send(recordedWhenSent(reply, rendered.body, (body) => storeAndSettle(visit, storeWhenComplete(visit, rendered, passed, body))))
  }

  /** The 404 page rendered for NOT_FOUND_RENDER_URL: read whole, sent with the visitor's fields, and stored as it was rendered. */
  async function sendNotFoundRendered(visit: PageVisit, rendered: RenderResponse, passed: Record<string, string>): Promise<FastifyReply> {
    const { reply, notFound } = visit
    const body = Buffer.isBuffer(rendered.body) ? rendered.body : await buffer(rendered.body)
    // Stored before it is sent: the 404s waiting for this render then find it.
    if (visit.storable) await storeWhenComplete(visit, rendered, passed, body)
    return reply.send(notFound ? fillNotFound(body, notFound) : body)
  }

  /**
   * The flight of a page sent whole, settled once it is stored (or is not):
   * the waiters then find it, or render themselves; a purge since its render
   * began kept it out, and they may wait for a new one.
   */
  function storeAndSettle(visit: PageVisit, storing: Promise<void> | undefined): void {
    const { flight } = visit
    if (!flight) return
    visit.storing = true
    const settle = (): void => flight.settle({ kind: app.pageCache.ticket() === visit.ticket ? 'over' : 'again' })
    if (storing) void storing.finally(settle)
    else settle()
  }

  /** The page as the visitor got it, stored when its render was complete: its nonces swapped for hashes, its tags from the render's answer. */
  function storeWhenComplete(visit: PageVisit, rendered: RenderResponse, passed: Record<string, string>, body: Buffer): Promise<void> | undefined {
    const { request, reply } = visit
    // A page rendered whole says so in a header, a streamed one in its trailer.
    const outcome = rendered.trailers[RENDER_OUTCOME_TRAILER] ?? rendered.headers[RENDER_OUTCOME_TRAILER]
    if (outcome !== 'complete') {
      request.log.warn({ outcome: outcome ?? 'unknown' }, 'degraded render; not cached')
      return undefined
    }
    const nonce = rendered.headers[CSP_NONCE_HEADER]
    const { html, inline } = forCaching(body.toString('utf8'), typeof nonce === 'string' ? nonce : undefined)
    if (visit.notFound && !notFoundTemplate(html)) {
      request.log.warn('the 404 page does not hold its address once; not cached')
      return undefined
    }
    const cacheControl = publicCacheControl(config.cache.pageTtlMs, config.cache.staleWhileRevalidateMs)
    const headers = { ...headersForCache(reply.getHeaders()), ...passed, 'cache-control': cacheControl, 'content-security-policy': policies.withInline(inline) }
    const store = (tags: readonly string[]): void => {
      const page = { statusCode: rendered.statusCode, headers: { ...headers, ...cacheTagHeaders(tags) }, body: Buffer.from(html), tags }
      app.pageCache.store(visit.ticket, visit.cacheKey, page.statusCode, page.headers, page.body, tags)
      // For the other gateways, unless a purge came here since the render began (Redis has its own check).
      if (visit.ticket === app.pageCache.ticket()) visit.sharedLock?.store({ ...page, storedAt: Date.now() })
    }
    // What the page showed, as the render's answer says it once complete.
    const tags = answerTags(rendered)
    if (tags === undefined) request.log.warn('the render did not say the tags of the page; not cached')
    else store(tags)
    return undefined
  }

  return async (request, reply, requested) => {
    const visit = await resolveVisit(request, reply, requested)
    // A preview's redirect lookup and render start at once, and no cache answers it: admitted before either.
    if (visit.context.preview) admitRender(visit)
    if (await redirected(visit)) return reply
    // A few misses per turn of the loop: the hits that arrive meanwhile are answered between them (admission/loop-turns.ts).
    const turn = app.missTurns.turn()
    if (turn !== undefined) await turn
    return answerLive(visit)
  }
}
