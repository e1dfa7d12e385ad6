/**
 * What a page showed, as cache tags: the sections and global sets of its
 * data (each list it shows is named by its section) and `entry:<id>` for
 * every entry in it, lists included. The gateway hands a render the tags of
 * the data it sends, a renderer's fetch of deferred data gets that data's
 * tags in this header, and the renderer's answer says the tags of everything
 * it rendered: in this header of a page rendered whole, in this trailer of a
 * streamed one (and, in its header, those known when the page began).
 * Comma-separated: no tag holds a comma.
 */
export const RENDER_TAGS_HEADER = 'x-render-tags'
/** Marks a renderer's fetch of a page's data (`_payload.json`): its answer carries RENDER_TAGS_HEADER. */
export const RENDER_FETCH_HEADER = 'x-render-fetch'
/** Most tags an answer says, and the longest list as text: a gateway takes no page's tags past either. */
export const MAX_RENDER_TAGS = 1000
export const MAX_RENDER_TAGS_LENGTH = 32 * 1024
const ENTRY_TAG_PREFIX = 'entry:'

/**
 * The tags as one header value, each once. A list past the bounds keeps
 * only its sections (a page with very many entries), which still purge it:
 * an entry's purge names its section too.
 */
export function joinRenderTags(tags: Iterable<string>): string {
  const unique = [...new Set(tags)]
  const joined = unique.join(',')
  if (unique.length <= MAX_RENDER_TAGS && joined.length <= MAX_RENDER_TAGS_LENGTH) return joined
  return unique
    .filter((tag) => !tag.startsWith(ENTRY_TAG_PREFIX))
    .slice(0, MAX_RENDER_TAGS)
    .join(',')
}

/**
 * The tags a header or trailer value lists, each as it came; undefined for
 * no value or one past the bounds (an answer that says too much says nothing
 * usable). Each tag is the reader's to check.
 */
export function splitRenderTags(value: unknown): string[] | undefined {
  if (typeof value !== 'string' || value.length > MAX_RENDER_TAGS_LENGTH) return undefined
  const tags = value === '' ? [] : value.split(',')
  return tags.length > MAX_RENDER_TAGS ? undefined : tags
}
