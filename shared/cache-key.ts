import { createHash } from 'node:crypto'
import { CACHE_KEY_LENGTH, DEFAULT_CLIENT_ID } from './constants.ts'

/** JSON with object keys sorted at every depth, so key order never changes a hash. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map((item) => stableStringify(item)).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`
}

/** Keys already hashed, by query and then by variables and client id: every page asks for the same few. */
const knownKeys = new Map<string, Map<string, string>>()
let knownCount = 0
/** Enough for every page of a large site; past it the memo starts again (clients may send any variables). */
const MAX_KNOWN_KEYS = 20_000

/** The 10-character key of a query result: hash of (query, variables, client id). */
export function queryCacheKey(query: string, variables: Record<string, unknown> | undefined, clientId = DEFAULT_CLIENT_ID): string {
  const rest = `${stableStringify(variables ?? {})}\u0000${clientId}`
  let byRest = knownKeys.get(query)
  const known = byRest?.get(rest)
  if (known !== undefined) return known
  const key = createHash('sha256').update(query).update('\u0000').update(rest).digest('base64url').slice(0, CACHE_KEY_LENGTH)
  if (knownCount >= MAX_KNOWN_KEYS) {
    knownKeys.clear()
    knownCount = 0
    byRest = undefined
  }
  if (!byRest) knownKeys.set(query, (byRest = new Map()))
  byRest.set(rest, key)
  knownCount++
  return key
}
