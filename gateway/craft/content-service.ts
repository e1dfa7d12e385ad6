import { createHash } from 'node:crypto'
import { type DocumentNode, parse, print } from 'graphql'
import { queryCacheKey } from '../../shared/cache-key.ts'
import { DEFAULT_CLIENT_ID } from '../../shared/constants.ts'
import { NEVER_CACHED_OPERATIONS, type OperationName, type Operations } from '../../shared/operations.ts'
import { entryTag } from '../cache/cache-tags.ts'
import type { CacheLookup, CacheStatus, QueryCache } from '../cache/query-cache.ts'
import { BadRequestError, OperationNotAllowedError, OperationUnavailableError } from '../errors.ts'
import type { CraftClient, UpstreamAnswer } from './client.ts'
import { sanitizeAnswer } from './sanitize-rich-text.ts'

export interface RunContext {
  /** Token to send upstream: a preview token or the site's default token. */
  token: string | undefined
  /** A preview: never read from nor stored in any cache. */
  preview: boolean
  requestId?: string | undefined
}

interface AllowedOperation {
  name: OperationName
  query: string
}

/** Hash of a document in its printed (normalised) form: whitespace and comments do not count. */
export function documentHash(document: DocumentNode): string {
  return createHash('sha256').update(print(document)).digest('hex')
}

/** How Craft answers a preview token it does not know (400 "Invalid token") or may not use. */
const REFUSED_TOKEN_STATUSES = new Set([400, 401, 403])

const SECTION_LITERAL = /section:\s*"([^"]+)"/g
/** A global set has no section: its handle stands in, so `{"sections":["siteSettings"]}` purges navigation and footer. */
const GLOBAL_SET_LITERAL = /globalSet\(\s*handle:\s*"([^"]+)"/g

interface Origins {
  sections: string[]
  entries: string[]
}

/** Sections (and global sets) and entry ids an answer was built from: what purges and CDN tags name. */
function originsOf(query: string, variables: Record<string, unknown>, answer: UpstreamAnswer): Origins {
  const sections = new Set<string>()
  const entries = new Set<string>()
  for (const match of query.matchAll(SECTION_LITERAL)) if (match[1]) sections.add(match[1])
  for (const match of query.matchAll(GLOBAL_SET_LITERAL)) if (match[1]) sections.add(match[1])
  const variable = variables.section
  for (const value of Array.isArray(variable) ? variable : [variable]) if (typeof value === 'string') sections.add(value)
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk)
    else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>
      // An entry is what has a section; assets and global sets have ids too but are not entries.
      if (typeof record.sectionHandle === 'string') {
        sections.add(record.sectionHandle)
        if (typeof record.id === 'string' || typeof record.id === 'number') entries.add(String(record.id))
      }
      for (const [key, inner] of Object.entries(record)) if (key !== 'sectionHandle') walk(inner)
    }
  }
  walk(answer.body.data)
  return { sections: [...sections], entries: [...entries] }
}

/**
 * The only way to Craft: allowlisted operations, the right token on the
 * wire, and the query cache for everything that may be cached.
 */
export class ContentService {
  private allowed = new Map<string, AllowedOperation>()
  private byName = new Map<OperationName, AllowedOperation>()
  private unavailable: ReadonlyMap<OperationName, string> = new Map()

  constructor(
    private readonly client: CraftClient,
    private readonly cache: QueryCache,
    operations: Operations,
    private readonly useCache = true,
    private readonly onLookup: (status: CacheStatus) => void = () => undefined,
  ) {
    this.useOperations(operations)
  }

  /**
   * The documents to send from now on (in the naming Craft's schema uses), and
   * the operations its schema would refuse: those fail at once, without a call.
   */
  useOperations(operations: Operations, unavailable: ReadonlyMap<OperationName, string> = new Map()): void {
    const allowed = new Map<string, AllowedOperation>()
    const byName = new Map<OperationName, AllowedOperation>()
    for (const [name, query] of Object.entries(operations) as [OperationName, string][]) {
      const operation = { name, query }
      allowed.set(documentHash(parse(query)), operation)
      byName.set(name, operation)
    }
    this.allowed = allowed
    this.byName = byName
    this.unavailable = unavailable
  }

  /** The allowlisted operation a client's document is, or an OPERATION_NOT_ALLOWED error. */
  resolve(query: string): AllowedOperation {
    let document: DocumentNode
    try {
      document = parse(query)
    } catch (error) {
      throw new BadRequestError(`The query is not valid GraphQL: ${(error as Error).message}`)
    }
    const operation = this.allowed.get(documentHash(document))
    if (!operation) {
      const names = document.definitions.flatMap((d) => ('name' in d && d.name ? [d.name.value] : []))
      throw new OperationNotAllowedError(names[0] ?? 'anonymous')
    }
    return operation
  }

  /** Whether the CMS answers Craft's `ping` query. */
  async ping(requestId?: string): Promise<boolean> {
    try {
      const answer = await this.client.query({ query: '{ ping }', requestId })
      return answer.status === 200 && answer.body.data?.ping === 'pong'
    } catch {
      return false
    }
  }

  /**
   * Whether Craft accepts a preview token: false only when it refuses it (a 4xx
   * answer); an unreachable Craft says nothing about the token.
   */
  async acceptsToken(token: string, requestId?: string): Promise<boolean> {
    try {
      const answer = await this.client.query({ query: '{ ping }', token, requestId })
      return !REFUSED_TOKEN_STATUSES.has(answer.status)
    } catch (error) {
      return !REFUSED_TOKEN_STATUSES.has((error as { upstreamStatus?: number }).upstreamStatus ?? 0)
    }
  }

  /** What the cache holds for an operation, without asking Craft; nothing in a preview. */
  cachedNamed(name: OperationName, variables: Record<string, unknown>, context: RunContext): UpstreamAnswer | undefined {
    const operation = this.byName.get(name)
    if (!operation || !this.useCache || context.preview) return undefined
    return this.cache.peek(queryCacheKey(operation.query, variables, DEFAULT_CLIENT_ID))
  }

  runNamed(name: OperationName, variables: Record<string, unknown>, context: RunContext): Promise<CacheLookup> {
    const operation = this.byName.get(name)
    if (!operation) throw new OperationNotAllowedError(name)
    return this.run(operation, variables, context)
  }

  run(operation: AllowedOperation, variables: Record<string, unknown>, context: RunContext): Promise<CacheLookup> {
    if (this.unavailable.has(operation.name)) return Promise.reject(new OperationUnavailableError(operation.name))
    const load = (): Promise<UpstreamAnswer> =>
      this.client
        .query({
          query: operation.query,
          variables,
          operationName: operation.name,
          token: context.token,
          requestId: context.requestId,
        })
        .then(sanitizeAnswer)
    // Both lists come from one walk of the answer.
    const origins = new WeakMap<UpstreamAnswer, Origins>()
    const originsOfAnswer = (answer: UpstreamAnswer): Origins => {
      let found = origins.get(answer)
      if (!found) origins.set(answer, (found = originsOf(operation.query, variables, answer)))
      return found
    }
    if (!this.useCache || context.preview || NEVER_CACHED_OPERATIONS.has(operation.name)) {
      this.onLookup('BYPASS')
      return load().then((answer) => {
        const { sections, entries } = originsOfAnswer(answer)
        return { answer, status: 'BYPASS' as const, tags: [...sections, ...entries.map(entryTag)] }
      })
    }
    const lookup = this.cache.fetch(queryCacheKey(operation.query, variables, DEFAULT_CLIENT_ID), load, {
      storable: (answer) =>
        answer.status >= 200 && answer.status < 300 && answer.body.errors === undefined && answer.body.data != null,
      sections: (answer) => originsOfAnswer(answer).sections,
      entries: (answer) => originsOfAnswer(answer).entries,
    })
    return lookup.then((result) => {
      this.onLookup(result.status)
      return result
    })
  }
}
