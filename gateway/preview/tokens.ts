import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  CRAFT_TOKEN_HEADER,
  CRAFT_TOKEN_PATTERN,
  PREVIEW_QUERY_PARAMS,
  PREVIEW_TOKEN_QUERY_PARAM,
  PRIVATE_NO_STORE,
  TOKEN_COOKIE_MAX_AGE_SECONDS,
  TOKEN_COOKIE_NAME,
} from '../../shared/constants.ts'
import type { ContentService, RunContext } from '../craft/content-service.ts'
import { PRIVATE_NO_CACHE } from '../http/http-caching.ts'

const MAX_TOKEN_LENGTH = 512

/** A token as presented: undefined when there is none, null when Craft would refuse it. */
function presented(value: unknown): string | null | undefined {
  if (value === undefined || value === '') return undefined
  if (typeof value !== 'string' || value.length > MAX_TOKEN_LENGTH || !CRAFT_TOKEN_PATTERN.test(value)) return null
  return value
}

export interface ResolvedToken extends RunContext {
  /** Where the token came from: a query token is offered as a cookie, a cookie's token is dropped when it shows nothing or Craft refuses it. */
  source: 'query' | 'header' | 'cookie' | 'site'
  /** Whether the request carried a `craft_token` cookie, and whether that cookie's token could ever be used. */
  cookie: 'none' | 'usable' | 'unusable'
  /** A token was presented that Craft would refuse: the live content, but marked private and noindex like a preview. */
  malformed: boolean
}

/** The query-string names that belong to a preview link: a request that is no preview is served as if they were absent (shared/page-address.ts keeps them for a preview alone). */
export const PREVIEW_LINK_PARAMS: ReadonlySet<string> = new Set([...PREVIEW_QUERY_PARAMS, PREVIEW_TOKEN_QUERY_PARAM])

/**
 * Which token a request's upstream calls carry: the first one presented of
 * the preview query token (only beside x-craft-preview or
 * x-craft-live-preview), the X-Craft-Token header and the token cookie (the
 * site's default token in a header or cookie counts as none). Such a token
 * makes the request a preview, which bypasses every cache and is limited per
 * client. Anything else is the live content from the caches, as Craft gives
 * it without a token: a `token` parameter without a preview marker is no
 * token, and a presented token Craft would refuse (characters outside
 * [A-Za-z0-9_-]) is never sent; the live content then, whatever else the
 * request carries, marked private and noindex, and its cookie cleared.
 */
export function resolveToken(request: FastifyRequest, siteToken: string | undefined): ResolvedToken {
  const requestId = request.id
  const query = request.query as Record<string, unknown>
  const marked = PREVIEW_QUERY_PARAMS.some((param) => query[param] !== undefined)
  const rawCookie = request.cookies?.[TOKEN_COOKIE_NAME]
  const cookieToken = presented(rawCookie)
  const cookie: ResolvedToken['cookie'] =
    rawCookie === undefined ? 'none' : typeof cookieToken === 'string' && cookieToken !== siteToken ? 'usable' : 'unusable'
  const candidates: [ResolvedToken['source'], string | null | undefined][] = [
    ['query', marked ? presented(query[PREVIEW_TOKEN_QUERY_PARAM]) : undefined],
    ['header', presented(request.headers[CRAFT_TOKEN_HEADER])],
    ['cookie', cookieToken],
  ]
  for (const [source, token] of candidates) {
    if (token === undefined || (token === siteToken && source !== 'query')) continue
    // Never sent, and nothing else the request carries is used either.
    if (token === null) return { token: siteToken, preview: false, source: 'site', cookie, malformed: true, requestId }
    return { token, preview: true, source, cookie, malformed: false, requestId }
  }
  return { token: siteToken, preview: false, source: 'site', cookie, malformed: false, requestId }
}

/** A failed answer built with the token cookie, because the CMS no longer accepts that token (expired, or from another CMS). */
export async function refusedCookie(content: ContentService, context: ResolvedToken, statusCode: number): Promise<boolean> {
  if (context.source !== 'cookie' || context.token === undefined || statusCode < 500) return false
  return !(await content.acceptsToken(context.token, context.requestId))
}

/** The context of a request whose own token Craft refused: the live content with the default token, still uncached. */
export function withSiteToken(context: ResolvedToken, siteToken: string | undefined): ResolvedToken {
  return { ...context, token: siteToken, preview: true, source: 'site' }
}

/**
 * Sets or clears the token cookie once an answer built with `context` is
 * known. `shows`: whether the answer shows a draft or an unpublished entry,
 * undefined when the gateway cannot tell (the renderer fetched its own data,
 * or the CMS failed). `offer`: whether a token from the preview link may be
 * offered as the cookie (a page, not a failed render).
 * - no usable token (none, the default one, or one Craft refuses): a cookie the request carried is cleared;
 * - the preview link's token: offered when the answer shows a draft (or cannot tell), otherwise a carried cookie is cleared;
 * - the cookie's token: cleared when the answer shows nothing a token changes;
 * - the X-Craft-Token header's token: a carried cookie is cleared only when it could never be used.
 */
export function settleTokenCookie(reply: FastifyReply, context: ResolvedToken, shows: boolean | undefined, offer: boolean): void {
  switch (context.source) {
    case 'site':
      if (context.cookie !== 'none') clearTokenCookie(reply)
      return
    case 'query':
      if (offer && context.token && shows !== false) setTokenCookie(reply, context.token)
      else if (context.cookie === 'unusable' || (shows === false && context.cookie !== 'none')) clearTokenCookie(reply)
      return
    case 'cookie':
      if (shows === false) clearTokenCookie(reply)
      return
    case 'header':
      if (context.cookie === 'unusable') clearTokenCookie(reply)
  }
}

/**
 * Offers a preview token to the browser. SameSite=None because live preview
 * runs the site inside the CMS's iframe on another origin, where a Lax or
 * Strict cookie would not be sent; None requires Secure, and HttpOnly keeps
 * it from scripts.
 */
export function setTokenCookie(reply: FastifyReply, token: string): void {
  reply.setCookie(TOKEN_COOKIE_NAME, token, {
    maxAge: TOKEN_COOKIE_MAX_AGE_SECONDS,
    path: '/',
    secure: true,
    httpOnly: true,
    sameSite: 'none',
  })
}

/** Drops a token cookie that Craft refuses or that shows nothing, so one stale cookie does not keep every page private or turn it into an error. */
export function clearTokenCookie(reply: FastifyReply): void {
  reply.clearCookie(TOKEN_COOKIE_NAME, { path: '/', secure: true, httpOnly: true, sameSite: 'none' })
}

/** Response headers of anything built with a preview token. */
export function markPrivate(reply: FastifyReply): void {
  reply.header('cache-control', PRIVATE_NO_STORE)
  reply.header('x-robots-tag', 'noindex')
}

/**
 * A live answer to a request that carried a token cookie (which it then
 * ignored: one Craft would refuse, the site's default token, or one beside
 * a malformed token) clears it, and is then for this browser alone; one
 * that presented a malformed token is private and noindex like a preview.
 */
export function dropUnusableCookie(reply: FastifyReply, context: ResolvedToken): void {
  if (context.cookie !== 'none') clearTokenCookie(reply)
  if (context.malformed) markPrivate(reply)
  else if (context.cookie !== 'none' && String(reply.getHeader('cache-control') ?? '').startsWith('public')) reply.header('cache-control', PRIVATE_NO_CACHE)
}
