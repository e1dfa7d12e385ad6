import { createHmac, timingSafeEqual } from 'node:crypto'
import { CLOCK_SKEW_MS } from './entry-codec.ts'
import type { SharedPage } from './types.ts'

const PAGE_TAG = /^[A-Za-z0-9_:.-]{1,200}$/

/** An HMAC of the entry under RENDER_SECRET, told apart by its context from the render requests' signatures under the same secret. */
const pageSignature = (rest: string, secret: string): string => createHmac('sha256', secret).update('havenborg shared page\n').update(rest).digest('hex')

/** `P <hmac>` on the first line, `[storedAt,statusCode,headers,tags]` on the second, then the page's bytes. */
export function encodePage(page: SharedPage, secret: string): string {
  const rest = `${JSON.stringify([page.storedAt, page.statusCode, page.headers, page.tags])}\n${page.body.toString('utf8')}`
  return `P ${pageSignature(rest, secret)}\n${rest}`
}

/** A page written by a gateway with the same secret, of the shape one stores: anything else is refused (and why). */
export function decodePage(stored: string, secret: string): { page: SharedPage; fault?: undefined } | { page?: undefined; fault: string } {
  const first = stored.indexOf('\n')
  const second = first === -1 ? -1 : stored.indexOf('\n', first + 1)
  if (!stored.startsWith('P ') || second === -1) return { fault: 'not a page entry' }
  const rest = stored.slice(first + 1)
  const given = Buffer.from(stored.slice(2, first), 'utf8')
  const expected = Buffer.from(pageSignature(rest, secret), 'utf8')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { fault: 'signature does not match' }
  let header: unknown
  try {
    header = JSON.parse(stored.slice(first + 1, second))
  } catch {
    return { fault: 'header not JSON' }
  }
  if (!Array.isArray(header) || header.length !== 4) return { fault: 'header not [storedAt,statusCode,headers,tags]' }
  const [storedAt, statusCode, headers, tags] = header as unknown[]
  if (typeof storedAt !== 'number' || !Number.isFinite(storedAt) || storedAt > Date.now() + CLOCK_SKEW_MS) return { fault: 'storedAt not a time before now' }
  if (statusCode !== 200) return { fault: 'not a 200 page' }
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers) || !Object.values(headers).every((value) => typeof value === 'string')) return { fault: 'headers not strings' }
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string' && PAGE_TAG.test(tag))) return { fault: 'tags not tags' }
  const body = Buffer.from(stored.slice(second + 1), 'utf8')
  return { page: { storedAt: Math.min(storedAt, Date.now()), statusCode, headers: headers as Record<string, string>, tags: tags as string[], body } }
}
