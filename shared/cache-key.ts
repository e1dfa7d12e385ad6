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

/** The 10-character key of a query result: hash of (query, variables, client id). */
export function queryCacheKey(query: string, variables: Record<string, unknown> | undefined, clientId = DEFAULT_CLIENT_ID): string {
  return createHash('sha256')
    .update(query)
    .update('\u0000')
    .update(stableStringify(variables ?? {}))
    .update('\u0000')
    .update(clientId)
    .digest('base64url')
    .slice(0, CACHE_KEY_LENGTH)
}
