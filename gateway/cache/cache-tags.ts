import { LRUCache } from 'lru-cache'
import { CHANNELS } from '../../shared/sections.ts'

/** Cloudflare's and Akamai's header (comma-separated) and Fastly's (space-separated), with the same tags. */
export const CACHE_TAG_HEADER = 'cache-tag'
export const SURROGATE_KEY_HEADER = 'surrogate-key'

/** The tag of one Craft entry; section handles (and global set handles) are tags as they are. */
export const entryTag = (id: string | number): string => `entry:${id}`

/** What a purge may name: a section or global set handle, or `entry:<id>`. */
export const TAG_PATTERN = /^[A-Za-z0-9_:.-]{1,200}$/

/**
 * CDNs cap these headers (Fastly and Cloudflare at 16 KB); a list page with
 * very many entries keeps only its sections, which still purge it.
 */
const MAX_HEADER_LENGTH = 8000

/** A redirect rule may replace any page, so purging that section drops every stored page. */
const SITE_WIDE_TAGS: ReadonlySet<string> = new Set([CHANNELS.redirects.section])

export function touchesEveryPage(tags: readonly string[]): boolean {
  return tags.some((tag) => SITE_WIDE_TAGS.has(tag))
}

/** Tag lists seen before: every render of a page asks with the same list, and sorting and joining it showed in the profile. */
const headersOfList = new LRUCache<string, Readonly<Record<string, string>>>({ max: 4096 })

/** The CDN tag headers of a response built from these tags; none for an empty list. Shared: copy before changing. */
export function cacheTagHeaders(tags: readonly string[]): Readonly<Record<string, string>> {
  if (tags.length === 0) return {}
  // Tags never hold a line break (TAG_PATTERN, and section handles): the joined list names the list.
  const listed = tags.join('\n')
  const known = headersOfList.get(listed)
  if (known) return known
  let kept = [...new Set(tags)].sort()
  if (kept.join(',').length > MAX_HEADER_LENGTH) kept = kept.filter((tag) => !tag.startsWith(entryTag('')))
  const headers = Object.freeze({ [CACHE_TAG_HEADER]: kept.join(','), [SURROGATE_KEY_HEADER]: kept.join(' ') })
  headersOfList.set(listed, headers)
  return headers
}

/** The union of several tag lists. */
export function mergeTags(lists: Iterable<readonly string[]>): string[] {
  const all = new Set<string>()
  for (const list of lists) for (const tag of list) all.add(tag)
  return [...all]
}
