import { notFoundMessage } from '../../shared/constants.ts'
import { NOT_FOUND_SUGGESTION_CLASS } from '../../shared/not-found-suggestion.ts'
import { scriptJson } from '../../shared/script-json.ts'
import type { SitePath } from '../../shared/site-path.ts'

/** The page cache's key of the one stored 404 page: no path's key starts so. */
export const NOT_FOUND_PAGE_KEY = '\u0000404'

/**
 * The address the stored 404 page is rendered for: a path no route takes.
 * Nothing of a 404 page depends on its path but three fields of the payload
 * it carries for hydration (`path`, `fullPath`, `error.message`) and its
 * suggestion ("Bedoelde u …?", in the payload and on the page): the page is
 * rendered once with this path, and each visitor gets it with those filled
 * in with the visitor's own.
 */
export const NOT_FOUND_RENDER_URL: SitePath = { rawPath: '/__404__', search: '', path: '/__404__' }

/** The suggestion the stored 404 page is rendered with, where each visitor's own goes. */
export const SUGGESTION_PLACEHOLDER = '/__suggestie__'

/** The fields of a 404 payload that depend on the address asked for. */
export interface NotFoundFields {
  path: string
  fullPath: string
  message: string
  /** The sitemap's address nearest to the path (gateway/payload/nearest-page.ts), or null. */
  suggestion: string | null
}

/** A page the CMS says is missing, found while its render was prepared: answered with the stored 404 page instead. */
export class MissingPage {
  constructor(readonly fields: NotFoundFields) {}
}

const FIELD_NAMES = ['path', 'fullPath', 'message'] as const
type FieldName = (typeof FIELD_NAMES)[number]
/** Where the stored page is cut: the payload's fields, and the suggestion in the payload and on the page. */
type Cut = FieldName | 'suggestion' | 'suggestionMarkup'

const RENDERED: Record<FieldName, string> = { path: NOT_FOUND_RENDER_URL.path, fullPath: NOT_FOUND_RENDER_URL.path, message: notFoundMessage(NOT_FOUND_RENDER_URL.path) }

/** A field as the payload's JSON in the page has it: `"path":"/__404__"`. */
const fieldText = (name: Cut, value: string | null): string => `${JSON.stringify(name)}:${scriptJson(value)}`

const SUGGESTION_OPEN = `<p class="${NOT_FOUND_SUGGESTION_CLASS}">`

/** Text as React escapes it in HTML, text and attributes alike. */
const htmlText = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;' })[char] ?? char)

/** The stored page's text cut where the fields go, which field goes in each cut, and the suggestion's paragraph. */
interface Template {
  parts: string[]
  order: Cut[]
  /** The "Bedoelde u …?" paragraph as rendered with SUGGESTION_PLACEHOLDER; undefined when the page has none (a renderer of an older build). */
  paragraph: string | undefined
}

/** Where `text` is in `html` when it is there exactly once; -1 otherwise (and `twice` says which). */
function onlyAt(html: string, text: string): { at: number; twice: boolean } {
  const at = html.indexOf(text)
  return { at, twice: at !== -1 && html.indexOf(text, at + 1) !== -1 }
}

/**
 * The 404 page rendered for NOT_FOUND_RENDER_URL cut at its fields;
 * undefined when it does not hold each of the three exactly once (then it is
 * not stored). The suggestion is cut out when the page has it once in its
 * payload and once as its paragraph; a payload's alone is filled with null.
 */
export function notFoundTemplate(html: string): Template | undefined {
  const found: { name: Cut; at: number; length: number }[] = []
  for (const name of FIELD_NAMES) {
    const text = fieldText(name, RENDERED[name])
    const { at, twice } = onlyAt(html, text)
    if (at === -1 || twice) return undefined
    found.push({ name, at, length: text.length })
  }
  const field = fieldText('suggestion', SUGGESTION_PLACEHOLDER)
  const inPayload = onlyAt(html, field)
  if (inPayload.twice) return undefined
  let paragraph: string | undefined
  if (inPayload.at !== -1) {
    found.push({ name: 'suggestion', at: inPayload.at, length: field.length })
    const open = onlyAt(html, SUGGESTION_OPEN)
    const end = open.at === -1 || open.twice ? -1 : html.indexOf('</p>', open.at)
    if (end !== -1) {
      paragraph = html.slice(open.at, end + '</p>'.length)
      found.push({ name: 'suggestionMarkup', at: open.at, length: paragraph.length })
    }
  }
  found.sort((a, b) => a.at - b.at)
  const parts: string[] = []
  let from = 0
  for (const { at, length } of found) {
    parts.push(html.slice(from, at))
    from = at + length
  }
  parts.push(html.slice(from))
  return { parts, order: found.map(({ name }) => name), paragraph }
}

/** What goes into one cut of the template for a visitor's fields. */
function filled(template: Template, cut: Cut, fields: NotFoundFields): string {
  if (cut === 'suggestionMarkup') return fields.suggestion === null ? '' : (template.paragraph ?? '').replaceAll(SUGGESTION_PLACEHOLDER, htmlText(fields.suggestion))
  if (cut === 'suggestion') return fieldText(cut, template.paragraph === undefined ? null : fields.suggestion)
  return fieldText(cut, fields[cut])
}

/** Templates of stored 404 pages, by their body: a page is cut once, not on every 404. */
const templates = new WeakMap<Buffer, Template | null>()

/** The stored 404 page with a visitor's fields; as it is when it cannot be cut (never stored so). */
export function fillNotFound(body: Buffer, fields: NotFoundFields): Buffer {
  let template = templates.get(body)
  if (template === undefined) templates.set(body, (template = notFoundTemplate(body.toString('utf8')) ?? null))
  if (template === null) return body
  let html = template.parts[0] ?? ''
  template.order.forEach((cut, i) => {
    html += filled(template, cut, fields) + (template.parts[i + 1] ?? '')
  })
  return Buffer.from(html)
}
