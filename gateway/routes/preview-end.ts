import type { FastifyInstance, FastifyRequest } from 'fastify'
import { PREVIEW_END_PATH, PREVIEW_END_RETURN_PARAM, PRIVATE_NO_STORE } from '../../shared/constants.ts'
import { pageAddress } from '../../shared/page-address.ts'
import { type RouteTable, createRouteTable } from '../../shared/routes.ts'
import { localLocation } from '../../shared/local-location.ts'
import { splitSitePath } from '../../shared/site-path.ts'
import { CrossOriginError } from '../errors.ts'
import { clearTokenCookie } from '../preview/tokens.ts'

/** A form's body is never read here: the return address travels in the query. */
const FORM_BODY_LIMIT_BYTES = 1024

/**
 * Whether a page of this site sent the request: the browser's Sec-Fetch-Site
 * where it sends one, else its Origin, which it sends with every form POST.
 * Neither (a script, a proxy that strips both) is refused too.
 */
function fromThisSite(request: FastifyRequest, siteOrigin: string): boolean {
  const site = request.headers['sec-fetch-site']
  if (site !== undefined) return site === 'same-origin'
  const origin = request.headers.origin
  return origin !== undefined && (origin === siteOrigin || origin === `${request.protocol}://${request.host}`)
}

/**
 * The page the bar's button was on: the browser's own address of it (its
 * Referer, sent whole to this origin under the site's Referrer-Policy),
 * which after client-side navigations is the page shown now, not the one
 * the bar was rendered with; else the form's `terug`.
 */
function returnTo(request: FastifyRequest, siteOrigin: string): unknown {
  const referer = request.headers.referer
  if (referer !== undefined) {
    try {
      const url = new URL(referer)
      if (url.origin === siteOrigin || url.origin === `${request.protocol}://${request.host}`) return `${url.pathname}${url.search}`
    } catch {
      // Not a URL: the form's own address below.
    }
  }
  return (request.query as Record<string, unknown>)[PREVIEW_END_RETURN_PARAM]
}

/**
 * The live page to go back to: a plain path of this site with only what its
 * route reads (no preview link); the home page otherwise. Checked as it is
 * sent: `/%2F%2Fhost` decodes and encodes again as `//host`.
 */
function livePage(value: unknown, routes: RouteTable): string {
  const url = typeof value === 'string' ? splitSitePath(value) : undefined
  if (!url) return '/'
  const live = pageAddress(url, routes)
  return localLocation(`${live.rawPath}${live.search}`)
}

/**
 * Ends an editor's preview from the bar on a previewed page: clears the
 * token cookie (and, through Clear-Site-Data, the token the browser keeps in
 * local storage) and sends the browser to the live page. Only a POST from a
 * page of this site: a link elsewhere cannot end someone's preview.
 */
export async function previewEndRoutes(app: FastifyInstance): Promise<void> {
  const siteOrigin = app.config.siteUrl.origin
  const routes = createRouteTable(app.config.siteHandle)
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES }, (_request, _body, done) => done(null, undefined))
  app.post(PREVIEW_END_PATH, async (request, reply) => {
    reply.header('cache-control', PRIVATE_NO_STORE)
    if (!fromThisSite(request, siteOrigin)) throw new CrossOriginError()
    clearTokenCookie(reply)
    reply.header('clear-site-data', '"storage"')
    return reply.redirect(livePage(returnTo(request, siteOrigin), routes), 303)
  })
}
