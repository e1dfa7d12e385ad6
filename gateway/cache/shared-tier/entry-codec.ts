import type { UpstreamAnswer } from '../../craft/client.ts'
import type { SharedEntry } from '../query-cache.ts'

/** How far in the future an entry's fetch time may lie, for clocks of gateways that differ a little. */
export const CLOCK_SKEW_MS = 2000

/** `[fetchedAt,status,tags]` on one line, then the answer's bytes as Craft sent them. */
export function encode(entry: SharedEntry): string {
  return `${JSON.stringify([entry.fetchedAt, entry.answer.status, entry.tags])}\n${entry.answer.raw.toString('utf8')}`
}

/** What was read, as an entry, or why it is not one: Redis holds what anyone wrote there, not only what a gateway stored. */
type Decoded = { entry: SharedEntry; fault?: undefined } | { entry?: undefined; fault: string }

/** The shape of an entry (or of an answer left in a lock), as the Craft client checks an answer's shape. */
export function decode(stored: string): Decoded {
  const cut = stored.indexOf('\n')
  if (cut === -1) return { fault: 'no header line' }
  let header: unknown
  let body: unknown
  try {
    header = JSON.parse(stored.slice(0, cut))
    body = JSON.parse(stored.slice(cut + 1))
  } catch {
    return { fault: 'not JSON' }
  }
  if (!Array.isArray(header) || header.length !== 3) return { fault: 'header not [fetchedAt,status,tags]' }
  const [fetchedAt, status, tags] = header as unknown[]
  if (typeof fetchedAt !== 'number' || !Number.isFinite(fetchedAt) || fetchedAt <= 0) return { fault: 'fetchedAt not a time' }
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) return { fault: 'status not an HTTP status' }
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) return { fault: 'tags not strings' }
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !('data' in body || 'errors' in body)) return { fault: 'not a GraphQL answer' }
  const answer: UpstreamAnswer = { status, body: body as UpstreamAnswer['body'], raw: Buffer.from(stored.slice(cut + 1)) }
  return { entry: { answer, fetchedAt, tags: tags as string[] } }
}

/**
 * An entry as it may be used: of the right shape, an answer this cache would have stored (a good status, no
 * errors, the operation's root fields: `accepts`), fetched no later than now (give or take CLOCK_SKEW_MS).
 */
export function decodeEntry(stored: string, accepts: (answer: UpstreamAnswer) => boolean): Decoded {
  const decoded = decode(stored)
  if (!decoded.entry) return decoded
  const { entry } = decoded
  const now = Date.now()
  if (entry.fetchedAt > now + CLOCK_SKEW_MS) return { fault: 'fetchedAt in the future' }
  if (!accepts(entry.answer)) return { fault: 'not an answer that is stored (status, errors or root fields)' }
  // Within the skew, a fetch time ahead of this clock counts as now: an entry is never fresher than one fetched now.
  return { entry: { ...entry, fetchedAt: Math.min(entry.fetchedAt, now) } }
}
