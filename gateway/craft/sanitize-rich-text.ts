import sanitizeHtml from 'sanitize-html'
import { RICH_TEXT_FIELDS } from '../../shared/operations.ts'
import type { UpstreamAnswer } from './client.ts'

/** What rich text from the CMS may contain: text markup, lists, tables and links; no scripts, styles, frames or handlers. */
const ALLOWLIST: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'h2', 'h3', 'h4', 'ul', 'ol', 'li', 'strong', 'em', 'b', 'i', 'a', 'blockquote', 'br', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td'],
  allowedAttributes: { a: ['href', 'title', 'target', 'rel'], th: ['scope'] },
  allowedSchemes: ['https', 'http', 'mailto', 'tel'],
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

export function sanitizeRichText(html: string): string {
  return sanitizeHtml(html, ALLOWLIST)
}

function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean)
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    out[key] = typeof inner === 'string' && RICH_TEXT_FIELDS.has(key) ? sanitizeRichText(inner) : clean(inner)
  }
  return out
}

/** An upstream answer with every rich text field sanitised, before anything caches or renders it. */
export function sanitizeAnswer(answer: UpstreamAnswer): UpstreamAnswer {
  if (!answer.body.data) return answer
  const body = { ...answer.body, data: clean(answer.body.data) as Record<string, unknown> }
  return { ...answer, body, raw: Buffer.from(JSON.stringify(body)) }
}
