import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { CACHE_KEY_LENGTH, DEFAULT_CLIENT_ID } from './constants.ts'

const byKey = ([a]: [string, unknown], [b]: [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * JSON with object keys sorted at every depth, so key order never changes a
 * hash. Written with a stack of its own instead of recursion: however deep a
 * value is nested, it never overflows the call stack.
 */
export function stableStringify(value: unknown): string {
  let out = ''
  // A value still to write is boxed; a bare string is text to write as it is.
  const work: (string | [unknown])[] = [[value]]
  while (work.length > 0) {
    const item = work.pop() as string | [unknown]
    if (typeof item === 'string') {
      out += item
      continue
    }
    const [current] = item
    if (current === null || typeof current !== 'object') {
      out += JSON.stringify(current) ?? 'null'
    } else if (Array.isArray(current)) {
      out += '['
      work.push(']')
      for (let i = current.length - 1; i >= 0; i--) {
        work.push([current[i]])
        if (i > 0) work.push(',')
      }
    } else {
      const entries = Object.entries(current as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(byKey)
      out += '{'
      work.push('}')
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i] as [string, unknown]
        work.push([v])
        work.push(`${i > 0 ? ',' : ''}${JSON.stringify(k)}:`)
      }
    }
  }
  return out
}

/** The memo's bound: thousands of pages' keys (a document of about a kilobyte each). */
export const KEY_MEMO_MAX_BYTES = 4 * 1024 * 1024
/** Variables longer than this are hashed every time: a page's are far shorter, and hashing is cheap next to a request that sends them. */
export const KEY_MEMO_MAX_VARIABLES_CHARS = 512

/** Keys already hashed, by query, variables and client id: every page asks for the same few. */
const knownKeys = new LRUCache<string, string>({
  maxSize: KEY_MEMO_MAX_BYTES,
  // Two bytes a character (strings may be two-byte), and the memo's own bookkeeping of an entry.
  sizeCalculation: (key, memoKey) => 2 * (memoKey.length + key.length) + 96,
})

/** Bytes the key memo holds, as it counts them. */
export function keyMemoBytes(): number {
  return knownKeys.calculatedSize
}

function hashKey(query: string, rest: string): string {
  return createHash('sha256').update(query).update('\u0000').update(rest).digest('base64url').slice(0, CACHE_KEY_LENGTH)
}

/**
 * A short stand-in for each query text in the memo's keys: a query is a
 * kilobyte or more, and a key made of it would be hashed whole on every
 * lookup, where the query's own string keeps its hash. Queries are the
 * gateway's allowlisted operations, a few dozen; past QUERY_IDS_MAX, the
 * text itself.
 */
const QUERY_IDS_MAX = 1024
const queryIds = new Map<string, string>()
function queryIdOf(query: string): string {
  let id = queryIds.get(query)
  if (id === undefined) {
    if (queryIds.size >= QUERY_IDS_MAX) return query
    queryIds.set(query, (id = `\u0001${queryIds.size}`))
  }
  return id
}

/** The 10-character key of a query result: hash of (query, variables, client id). */
export function queryCacheKey(query: string, variables: Record<string, unknown> | undefined, clientId = DEFAULT_CLIENT_ID): string {
  const stableVariables = stableStringify(variables ?? {})
  const rest = `${stableVariables}\u0000${clientId}`
  if (stableVariables.length > KEY_MEMO_MAX_VARIABLES_CHARS) return hashKey(query, rest)
  const memoKey = `${queryIdOf(query)}\u0000${rest}`
  const known = knownKeys.get(memoKey)
  if (known !== undefined) return known
  const key = hashKey(query, rest)
  knownKeys.set(memoKey, key)
  return key
}
