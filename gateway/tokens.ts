import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  CRAFT_TOKEN_HEADER,
  PREVIEW_QUERY_PARAMS,
  PREVIEW_TOKEN_QUERY_PARAM,
  TOKEN_COOKIE_MAX_AGE_SECONDS,
  TOKEN_COOKIE_NAME,
} from '../shared/constants.ts'
import type { RunContext } from './craft/content-service.ts'

const MAX_TOKEN_LENGTH = 512
const TOKEN_PATTERN = /^[A-Za-z0-9._~+/=-]+$/

function validToken(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '' || value.length > MAX_TOKEN_LENGTH) return undefined
  return TOKEN_PATTERN.test(value) ? value : undefined
}

export interface ResolvedToken extends RunContext {
  /** Where the token came from: a query token is offered as a cookie, a cookie's token is dropped when Craft refuses it. */
  source: 'query' | 'header' | 'cookie' | 'site'
}

/** Whether the query string marks a preview (Craft's x-craft-preview / x-craft-live-preview) with a token. */
export function previewTokenFromQuery(query: Record<string, unknown>): string | undefined {
  const marked = PREVIEW_QUERY_PARAMS.some((param) => query[param] !== undefined)
  return marked ? validToken(query[PREVIEW_TOKEN_QUERY_PARAM]) : undefined
}

/** Whether a request carries anything of a preview, usable or not: such a request never reads or fills a cache. */
function carriesPreview(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown>
  return (
    [...PREVIEW_QUERY_PARAMS, PREVIEW_TOKEN_QUERY_PARAM].some((param) => query[param] !== undefined) ||
    request.headers[CRAFT_TOKEN_HEADER] !== undefined ||
    request.cookies?.[TOKEN_COOKIE_NAME] !== undefined
  )
}

/**
 * Which token a request's upstream calls carry, in order: the preview query
 * token, the X-Craft-Token header, the token cookie, the site's default token.
 * Anything but the default token is a preview and bypasses every cache; so is
 * a request with preview parameters or a token that cannot be used, which
 * then gets the live content with the default token.
 */
export function resolveToken(request: FastifyRequest, siteToken: string | undefined): ResolvedToken {
  const requestId = request.id
  const fromQuery = previewTokenFromQuery(request.query as Record<string, unknown>)
  if (fromQuery) return { token: fromQuery, preview: true, source: 'query', requestId }
  const header = validToken(request.headers[CRAFT_TOKEN_HEADER])
  if (header && header !== siteToken) return { token: header, preview: true, source: 'header', requestId }
  const cookie = validToken(request.cookies?.[TOKEN_COOKIE_NAME])
  if (cookie && cookie !== siteToken) return { token: cookie, preview: true, source: 'cookie', requestId }
  return { token: siteToken, preview: carriesPreview(request), source: 'site', requestId }
}

/** The context of a request whose own token Craft refused: the live content with the default token, still uncached. */
export function withSiteToken(context: ResolvedToken, siteToken: string | undefined): ResolvedToken {
  return { ...context, token: siteToken, preview: true, source: 'site' }
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

/** Drops a token cookie Craft refuses, so one stale cookie does not turn every page into an error. */
export function clearTokenCookie(reply: FastifyReply): void {
  reply.clearCookie(TOKEN_COOKIE_NAME, { path: '/', secure: true, httpOnly: true, sameSite: 'none' })
}

/** Response headers of anything built with a preview token. */
export function markPrivate(reply: FastifyReply): void {
  reply.header('cache-control', 'private, no-store')
  reply.header('x-robots-tag', 'noindex')
}
