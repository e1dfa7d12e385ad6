/** Longest page path either service accepts. */
export const MAX_SITE_PATH_LENGTH = 1024

export interface SitePath {
  /** The path as requested, still percent-encoded. */
  rawPath: string
  /** The query string with its `?`, or ''. */
  search: string
  /** The path decoded. */
  path: string
}

/**
 * A request URL split into a plain path of this site and its query; undefined
 * for anything else: no leading slash, `//` or `/\` (another origin wherever a
 * path is resolved against a base URL), a backslash or control character raw
 * or percent-encoded, percent-encoding that does not decode, or a path too long.
 */
export function splitSitePath(url: string): SitePath | undefined {
  const cut = url.indexOf('?')
  const rawPath = cut === -1 ? url : url.slice(0, cut)
  const search = cut === -1 ? '' : url.slice(cut)
  if (rawPath.length > MAX_SITE_PATH_LENGTH || !rawPath.startsWith('/') || rawPath.startsWith('//')) return undefined
  let path: string
  try {
    path = decodeURIComponent(rawPath)
    // A query that is not valid percent-encoding would be read differently by every cache and client on the way.
    decodeURIComponent(search)
  } catch {
    return undefined
  }
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return undefined
  return { rawPath, search, path }
}
