import type { RouteTable } from './routes.ts'
import { type SitePath, splitSitePath } from './site-path.ts'

/** Characters a path keeps as they are (RFC 3986's unreserved, sub-delims, `:`, `@` and `/`); any other is percent-encoded. */
const ENCODED_IN_PATH = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/gu

/** A decoded path in the one encoding every key and render uses: `/over%2Dons` and `/over-ons` are the same page. */
export function encodedPath(path: string): string {
  return path.replace(ENCODED_IN_PATH, (char) => encodeURIComponent(char))
}

/**
 * A request's address as far as it changes the answer: the path in one
 * encoding, and of the query only the parameters the path's route reads
 * (`pagina` on a paginated overview), in the route table's order, the first
 * value of each; any other parameter (`utm_source`, `?&&&`) is ignored for
 * the cache keys and the render. `kept` names more parameters to keep as
 * they were given (a preview's link).
 */
export function pageAddress(url: SitePath, routes: RouteTable, kept?: ReadonlySet<string>): SitePath {
  const rawPath = encodedPath(url.path)
  const read = routes.queryOf(url.path)
  if (url.search === '' || (read.length === 0 && kept === undefined)) return rawPath === url.rawPath && url.search === '' ? url : { ...url, rawPath, search: '' }
  const params = new URLSearchParams(url.search)
  const pairs: string[] = []
  for (const name of read) {
    const value = params.get(name)
    if (value !== null) pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
  }
  if (kept) for (const [name, value] of params) if (kept.has(name) && !read.includes(name)) pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
  return { ...url, rawPath, search: pairs.length === 0 ? '' : `?${pairs.join('&')}` }
}

/** The page cache's key of an address made by `pageAddress`. */
export const pageKeyOf = (address: SitePath): string => `${address.rawPath}${address.search}`

/**
 * The page cache's key of a raw request URL, as the full route makes it;
 * undefined for a URL that is no path of this site. A URL without a query or
 * percent-encoding is its own key (the common hit costs two scans).
 */
export function pageKeyOfUrl(url: string, routes: RouteTable): string | undefined {
  if (url.indexOf('?') === -1 && url.indexOf('%') === -1) return url
  const site = splitSitePath(url)
  return site === undefined ? undefined : pageKeyOf(pageAddress(site, routes))
}
