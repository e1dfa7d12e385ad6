import { notFoundMessage } from '../../shared/constants.ts'
import { scriptJson } from '../../shared/script-json.ts'
import type { SitePath } from '../../shared/site-path.ts'

/** The page cache's key of the one stored 404 page: no path's key starts so. */
export const NOT_FOUND_PAGE_KEY = '\u0000404'

/**
 * The address the stored 404 page is rendered for: a path no route takes.
 * Nothing of a 404 page depends on its path but three fields of the payload
 * it carries for hydration (`path`, `fullPath`, `error.message`): the page
 * is rendered once with this path, and each visitor gets it with those
 * fields filled in with the visitor's own.
 */
export const NOT_FOUND_RENDER_URL: SitePath = { rawPath: '/__404__', search: '', path: '/__404__' }

/** The fields of a 404 payload that depend on the address asked for. */
export interface NotFoundFields {
  path: string
  fullPath: string
  message: string
}

/** A page the CMS says is missing, found while its render was prepared: answered with the stored 404 page instead. */
export class MissingPage {
  constructor(readonly fields: NotFoundFields) {}
}

const FIELD_NAMES = ['path', 'fullPath', 'message'] as const
type FieldName = (typeof FIELD_NAMES)[number]

const RENDERED: NotFoundFields = { path: NOT_FOUND_RENDER_URL.path, fullPath: NOT_FOUND_RENDER_URL.path, message: notFoundMessage(NOT_FOUND_RENDER_URL.path) }

/** A field as the payload's JSON in the page has it: `"path":"/__404__"`. */
const fieldText = (name: FieldName, value: string): string => `${JSON.stringify(name)}:${scriptJson(value)}`

/** The stored page's text cut where the fields go, and which field goes in each cut. */
interface Template {
  parts: string[]
  order: FieldName[]
}

/**
 * The 404 page rendered for NOT_FOUND_RENDER_URL cut at its three fields;
 * undefined when it does not hold each exactly once (then it is not stored).
 */
export function notFoundTemplate(html: string): Template | undefined {
  const found: { name: FieldName; at: number; length: number }[] = []
  for (const name of FIELD_NAMES) {
    const text = fieldText(name, RENDERED[name])
    const at = html.indexOf(text)
    if (at === -1 || html.indexOf(text, at + 1) !== -1) return undefined
    found.push({ name, at, length: text.length })
  }
  found.sort((a, b) => a.at - b.at)
  const parts: string[] = []
  let from = 0
  for (const { at, length } of found) {
    parts.push(html.slice(from, at))
    from = at + length
  }
  parts.push(html.slice(from))
  return { parts, order: found.map(({ name }) => name) }
}

/** Templates of stored 404 pages, by their body: a page is cut once, not on every 404. */
const templates = new WeakMap<Buffer, Template | null>()

/** The stored 404 page with a visitor's fields; as it is when it cannot be cut (never stored so). */
export function fillNotFound(body: Buffer, fields: NotFoundFields): Buffer {
  let template = templates.get(body)
  if (template === undefined) templates.set(body, (template = notFoundTemplate(body.toString('utf8')) ?? null))
  if (template === null) return body
  let html = template.parts[0] ?? ''
  template.order.forEach((name, i) => {
    html += fieldText(name, fields[name]) + (template.parts[i + 1] ?? '')
  })
  return Buffer.from(html)
}
