import { PAYLOAD_SUFFIX } from './constants.ts'
import type { NotFoundEntry } from './content-types.ts'
import type { ScreenName } from './routes.ts'

export interface PayloadError {
  statusCode: number
  message: string
  fatal: boolean
}

/**
 * Everything a page needs, as the gateway assembles it from the results of
 * the route's operations. The renderer and the browser receive the same shape.
 */
export interface PagePayload {
  /** Path without query string. */
  path: string
  /** Path with query string, as in the error message of an unknown path. */
  fullPath: string
  routeId: string | null
  screen: ScreenName | 'error'
  status: number
  /** GraphQL `data` of each loader, by loader key. */
  data: Record<string, unknown>
  /** Keys of deferred loaders left out of this payload (asked for with `?part=deferred`). */
  pending: string[]
  page: number
  preview: boolean
  /** Public address of the site (SITE_URL), without trailing slash. */
  siteUrl: string
  /** The path search engines should index for this page; null for errors. */
  canonicalPath: string | null
  error?: PayloadError
  /** Content of the `notFound` section for a 404. */
  notFound?: NotFoundEntry | null
  /** A 404's "Bedoelde u …?": the sitemap's address nearest to the path asked for, null when none is near. */
  suggestion?: string | null
}

/** Which loaders a payload request wants: all, only those needed for the first bytes, or only the deferred ones. */
export type PayloadPart = 'all' | 'primary' | 'deferred'
export const PAYLOAD_PART_PARAM = 'part'
export const PAYLOAD_PARTS: readonly PayloadPart[] = ['all', 'primary', 'deferred']

/** Where a page's payload is, for the renderer and the browser alike: `/over-ons/` → `/over-ons/_payload.json`, `/` → `/_payload.json`. */
export function payloadPathOf(pagePath: string): string {
  const base = pagePath === '/' ? '' : pagePath.replace(/\/+$/, '')
  return `${base}${PAYLOAD_SUFFIX}`
}

/** The page a payload path belongs to: `/over-ons/_payload.json` → `/over-ons`, `/_payload.json` → `/` (payloadPathOf's inverse). */
export function pagePathOfPayload(payloadPath: string): string {
  return payloadPath.slice(0, -PAYLOAD_SUFFIX.length) || '/'
}

/**
 * Whether a request URL as it arrived (path and query, undecoded) asks for a
 * payload: cheap enough for a hook on every request. The route itself decides
 * on the decoded path (gateway/routes/catch-all.ts); the two differ only for
 * a percent-encoded `_payload.json`.
 */
export function isPayloadUrl(url: string): boolean {
  const cut = url.indexOf('?')
  return (cut === -1 ? url : url.slice(0, cut)).endsWith(PAYLOAD_SUFFIX)
}

/** The payload of a page that could not get its data: the error page, inside the layout when `data.site` is known. */
export function errorPayload(options: {
  path: string
  fullPath: string
  statusCode: number
  message: string
  preview: boolean
  siteUrl: string
  data?: Record<string, unknown>
}): PagePayload {
  return {
    path: options.path,
    fullPath: options.fullPath,
    routeId: null,
    screen: 'error',
    status: options.statusCode,
    data: options.data ?? {},
    pending: [],
    page: 1,
    preview: options.preview,
    siteUrl: options.siteUrl,
    canonicalPath: null,
    error: { statusCode: options.statusCode, message: options.message, fatal: false },
  }
}
