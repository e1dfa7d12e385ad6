import { LRUCache } from 'lru-cache'
import sanitizeHtml from 'sanitize-html'
import { linkContactsInHtmlText } from './contact-links.ts'
import { type DroppedLink, LINK_SCHEMES, cleanLinkField, isLinkField, refusedRichTextHref } from './link-href.ts'
import { RICH_TEXT_FIELDS } from './operations.ts'

/** What rich text may contain: text markup, lists, tables and links; no scripts, styles, frames or handlers. */
const ALLOWLIST: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'h2', 'h3', 'h4', 'ul', 'ol', 'li', 'strong', 'em', 'b', 'i', 'a', 'blockquote', 'br', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td'],
  allowedAttributes: { a: ['href', 'title', 'target', 'rel'], th: ['scope'] },
  allowedSchemes: [...LINK_SCHEMES],
  allowProtocolRelative: false,
  transformTags: {
    // The page has its own <h1>; a heading in the text is one level down.
    h1: 'h2',
    a: (tagName, attribs) => ({
      tagName,
      attribs: attribs.target === '_blank' ? { ...attribs, rel: 'noopener noreferrer' } : attribs,
    }),
  },
}

/** Sanitises a rich text field's HTML; `dropped` hears of each link it takes out, as of `field`. */
export type Sanitize = (html: string, dropped?: DroppedLink, field?: string) => string

const transformLink = ALLOWLIST.transformTags?.a as sanitizeHtml.Transformer

/**
 * Cleaned by the allowlist, with every Dutch phone number and e-mail address
 * that the editor did not make a link made one (tel: in E.164, mailto:). Text
 * inside a link stays as it is, so cleaning clean text changes nothing. A
 * link to an address of a scheme a link may not have (link-href.ts) loses
 * its href, as the allowlist would take it, and `dropped` hears of it.
 */
export const sanitizeRichText: Sanitize = (html, dropped, field = 'richText') => {
  let insideLinks = 0
  return sanitizeHtml(html, {
    ...ALLOWLIST,
    transformTags: {
      ...ALLOWLIST.transformTags,
      a: (tagName, attribs) => {
        const { href, ...rest } = attribs
        if (href === undefined || !refusedRichTextHref(href)) return transformLink(tagName, attribs)
        dropped?.(field, href)
        return transformLink(tagName, rest)
      },
    },
    onOpenTag: (name) => {
      if (name === 'a') insideLinks++
    },
    onCloseTag: (name) => {
      if (name === 'a' && insideLinks > 0) insideLinks--
    },
    textFilter: (text) => (insideLinks > 0 ? text : linkContactsInHtmlText(text)),
  })
}

/**
 * A sanitiser (sanitizeRichText) with its answers kept in an LRU bounded by bytes: text
 * seen before (the same page's text on every render) costs one lookup.
 */
export function memoisedSanitizer(maxBytes: number, sanitize: Sanitize = sanitizeRichText): Sanitize {
  const memo = new LRUCache<string, string>({
    maxSize: maxBytes,
    // UTF-16 code units; clean text maps to itself and is counted once.
    sizeCalculation: (clean, html) => Math.max(1, 2 * (html.length + (clean === html ? 0 : clean.length))),
  })
  // A link dropped is heard of when its text is first sanitised: logged once, as logDroppedLinks would anyway.
  return (html, dropped, field) => {
    let clean = memo.get(html)
    if (clean === undefined) {
      clean = sanitize(html, dropped, field)
      memo.set(html, clean === html ? html : clean)
    }
    return clean
  }
}

/** A rich text field's value made safe: its text sanitised; anything but text or null is not rich text and goes. */
function richTextValue(value: unknown, sanitize: Sanitize, dropped: DroppedLink | undefined, field: string): unknown {
  if (typeof value === 'string') return sanitize(value, dropped, field)
  return value === null || value === undefined ? value : null
}

/**
 * The value with every rich text field (RICH_TEXT_FIELDS, at any depth)
 * sanitised, and every link field (link-href.ts) holding only an address a
 * link may go to; `dropped` hears of each link taken out. Copy on write: what
 * needed no change is shared, and a value with nothing to change comes back
 * as the same object.
 */
export function withCleanRichText<T>(value: T, sanitize: Sanitize = sanitizeRichText, dropped?: DroppedLink): T {
  return clean(value, sanitize, dropped) as T
}

function clean(value: unknown, sanitize: Sanitize, dropped: DroppedLink | undefined): unknown {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const next = clean(item, sanitize, dropped)
      if (next !== item) (copy ??= value.slice())[i] = next
    }
    return copy ?? value
  }
  const record = value as Record<string, unknown>
  let copy: Record<string, unknown> | undefined
  for (const key of Object.keys(record)) {
    const inner = record[key]
    const next = RICH_TEXT_FIELDS.has(key) ? richTextValue(inner, sanitize, dropped, key) : isLinkField(key) ? cleanLinkField(key, inner, dropped) : clean(inner, sanitize, dropped)
    if (next !== inner) (copy ??= { ...record })[key] = next
  }
  return copy ?? record
}
