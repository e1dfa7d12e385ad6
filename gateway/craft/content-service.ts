import { createHash } from 'node:crypto'
import { type DocumentNode, type FragmentDefinitionNode, Kind, type OperationDefinitionNode, type SelectionSetNode, parse, print } from 'graphql'
import { queryCacheKey } from '../../shared/cache-key.ts'
import { DEFAULT_CLIENT_ID } from '../../shared/constants.ts'
import { NEVER_CACHED_OPERATIONS, type OperationName, type Operations } from '../../shared/operations.ts'
import { entryTag } from '../cache/cache-tags.ts'
import type { CacheLookup, CacheStatus, LoadPurpose, QueryCache } from '../cache/query-cache.ts'
import {
  BadRequestError,
  OperationNotAllowedError,
  OperationUnavailableError,
  UpstreamBadResponseError,
  VariableNotDeclaredError,
  VariablesTooDeepError,
  VariablesTooLargeError,
} from '../errors.ts'
import type { CraftClient, UpstreamAnswer } from './client.ts'
import { KnownEntries } from './known-entries.ts'
import { sanitizeAnswer } from './sanitize-rich-text.ts'
import type { DroppedLink } from '../../shared/link-href.ts'

export interface RunContext {
  /** Token to send upstream: a preview token or the site's default token. */
  token: string | undefined
  /** A preview: never read from nor stored in any cache. */
  preview: boolean
  requestId?: string | undefined
}

export interface AllowedOperation {
  name: OperationName
  query: string
  /** The variables the document declares, without their `$`. */
  variables: ReadonlySet<string>
  /** What every good answer has in `data`: the alias or name of each field the operation selects at its root. */
  rootKeys: readonly string[]
  /** Whether it lists a section's entries (`entries` or `entryCount` at its root) rather than looking one up. */
  lists: boolean
}

/** The root fields that list a section: their answers change when an entry joins, leaves or moves in it. */
const LIST_FIELDS: ReadonlySet<string> = new Set(['entries', 'entryCount'])

/** Which cache keeps an answer: the pages' own data, or what callers of /api asked for (never at the pages' expense). */
export type CacheAudience = 'pages' | 'api'

/** A page's variables are a few names, lists of one handle and numbers: far inside these. */
export const MAX_VARIABLES_DEPTH = 8
export const MAX_VARIABLES_BYTES = 4096
/** A refused variable's name is quoted this far in the error (and the log line it makes). */
const QUOTED_NAME_CHARS = 64

/** Hash of a document in its printed (normalised) form: whitespace and comments do not count. */
export function documentHash(document: DocumentNode): string {
  return createHash('sha256').update(print(document)).digest('hex')
}

function describeOperation(name: OperationName, query: string, document: DocumentNode): AllowedOperation {
  const definition = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
  )
  const rootKeys = new Set<string>()
  let lists = false
  const visited = new Set<string>()
  const collect = (selectionSet: SelectionSetNode): void => {
    for (const selection of selectionSet.selections) {
      // A selection under @include or @skip may rightly be missing from a good answer.
      if (selection.directives && selection.directives.length > 0) continue
      if (selection.kind === Kind.FIELD) {
        rootKeys.add((selection.alias ?? selection.name).value)
        if (LIST_FIELDS.has(selection.name.value)) lists = true
      } else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet)
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value)
        const fragment = fragments.get(selection.name.value)
        if (fragment) collect(fragment.selectionSet)
      }
    }
  }
  if (definition) collect(definition.selectionSet)
  return {
    name,
    query,
    variables: new Set(definition?.variableDefinitions?.map((variable) => variable.variable.name.value) ?? []),
    rootKeys: [...rootKeys],
    lists,
  }
}

/**
 * Refuses, before anything is hashed, cached or sent: a variable the
 * operation does not declare (Craft would ignore it, but it would make a new
 * cache key), variables nested too deep, or too large. Breadth first, level
 * by level, never recursion: a value nested thousands deep costs one walk.
 */
export function checkVariables(operation: AllowedOperation, variables: Record<string, unknown>): void {
  for (const name of Object.keys(variables)) {
    if (!operation.variables.has(name)) throw new VariableNotDeclaredError(operation.name, name.slice(0, QUOTED_NAME_CHARS))
  }
  let level: object[] = [variables]
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > MAX_VARIABLES_DEPTH) throw new VariablesTooDeepError(MAX_VARIABLES_DEPTH)
    const next: object[] = []
    for (const value of level) for (const inner of Object.values(value)) if (inner !== null && typeof inner === 'object') next.push(inner as object)
    level = next
  }
  if (Buffer.byteLength(JSON.stringify(variables)) > MAX_VARIABLES_BYTES) throw new VariablesTooLargeError(MAX_VARIABLES_BYTES)
}

/**
 * A 2xx answer without errors must carry every root field of the operation
 * (null is an answer: "not found"). One without them is broken, not empty: it
 * is never stored, and a stale entry stands in for it.
 */
function withRootFields(operation: AllowedOperation, answer: UpstreamAnswer): UpstreamAnswer {
  if (answer.status < 200 || answer.status >= 300 || answer.body.errors !== undefined) return answer
  if (!hasRootFields(operation, answer)) throw new UpstreamBadResponseError()
  return answer
}

function hasRootFields(operation: AllowedOperation, answer: UpstreamAnswer): boolean {
  const { data } = answer.body
  return data !== null && typeof data === 'object' && operation.rootKeys.every((key) => Object.hasOwn(data, key))
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

/**
 * What an answer was built from, as purges and CDN tags name it: `entry:<id>`
 * for every entry in it, lists included; the handle of a global set it reads;
 * and a section's handle where the answer depends on which entries the
 * section has: a list of it, or a lookup that found none there (a new entry
 * may be the one it looked for). A lookup that found its entry is not tagged
 * with the section: a change to another entry of the section changes nothing
 * in it. Each entry seen is handed to `remember` (a published answer's).
 */
function originsOf(operation: AllowedOperation, variables: Record<string, unknown>, answer: UpstreamAnswer, remember?: (record: Record<string, unknown>) => void): Origins {
  const named = new Set<string>()
  const sections = new Set<string>()
  const found = new Set<string>()
  const entries = new Set<string>()
  for (const match of operation.query.matchAll(SECTION_LITERAL)) if (match[1]) named.add(match[1])
  for (const match of operation.query.matchAll(GLOBAL_SET_LITERAL)) if (match[1]) sections.add(match[1])
  const variable = variables.section
  for (const value of Array.isArray(variable) ? variable : [variable]) if (typeof value === 'string') named.add(value)
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk)
    else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>
      // An entry is what has a section; assets and global sets have ids too but are not entries.
      if (typeof record.sectionHandle === 'string') {
        found.add(record.sectionHandle)
        if (typeof record.id === 'string' || typeof record.id === 'number') entries.add(String(record.id))
        remember?.(record)
      }
      for (const [key, inner] of Object.entries(record)) if (key !== 'sectionHandle') walk(inner)
    }
  }
  walk(answer.body.data)
  for (const section of named) if (operation.lists || !found.has(section)) sections.add(section)
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
  /** Counts the changes of the documents sent: a key made before one may name a document no longer sent. */
  private operationsGeneration = 0

  constructor(
    private readonly client: CraftClient,
    private readonly caches: { pages: QueryCache; api: QueryCache },
    operations: Operations,
    private readonly useCache = true,
    private readonly onLookup: (status: CacheStatus, audience: CacheAudience) => void = () => undefined,
    /** Told of each call made to the CMS for a request (a miss or a preview; never a background refresh): its client pays for it. */
    private readonly onRequestCall: (context: RunContext) => void = () => undefined,
    /** Told of each link the cleaning of an answer drops (shared/link-href.ts). */
    private readonly onDroppedLink?: DroppedLink,
    /** What the published answers said of each entry, for purges to compare a save with (save-purge.ts). */
    readonly knownEntries = new KnownEntries(),
  ) {
    this.useOperations(operations)
  }

  private readonly remember = (record: Record<string, unknown>): void => this.knownEntries.remember(record)

  /**
   * The documents to send from now on (in the naming Craft's schema uses), and
   * the operations its schema would refuse: those fail at once, without a call.
   */
  useOperations(operations: Operations, unavailable: ReadonlyMap<OperationName, string> = new Map()): void {
    const allowed = new Map<string, AllowedOperation>()
    const byName = new Map<OperationName, AllowedOperation>()
    for (const [name, query] of Object.entries(operations) as [OperationName, string][]) {
      const document = parse(query)
      const operation = describeOperation(name, query, document)
      allowed.set(documentHash(document), operation)
      byName.set(name, operation)
    }
    this.allowed = allowed
    this.byName = byName
    this.unavailable = unavailable
    this.operationsGeneration++
  }

  /** Names the documents sent now; a page's reused data is reused only within one (`stillFresh`). */
  get generation(): number {
    return this.operationsGeneration
  }

  /** The key of an operation's answer in the pages' cache; undefined where its answers are never cached. */
  private pagesKey(operation: AllowedOperation, variables: Record<string, unknown>): string | undefined {
    return this.useCache && !NEVER_CACHED_OPERATIONS.has(operation.name) ? queryCacheKey(operation.query, variables, DEFAULT_CLIENT_ID) : undefined
  }

  /** The pages' cache key of a named operation's answer under the documents sent now; undefined where such answers are not cached. */
  cacheKeyOf(name: OperationName, variables: Record<string, unknown>): string | undefined {
    const operation = this.byName.get(name)
    return operation && !this.unavailable.has(name) ? this.pagesKey(operation, variables) : undefined
  }

  /**
   * Whether each key's answer in the pages' cache is still fresh and still the
   * very answer given (the cache never changes an answer it holds), under the
   * documents of `generation`: then a page built from them would be built the
   * same. Each is counted as the hit it stands for.
   */
  readonly stillFresh = (keys: readonly string[], answers: readonly unknown[], generation: number): boolean => {
    if (!this.useCache || generation !== this.operationsGeneration) return false
    for (let i = 0; i < keys.length; i++) {
      if (!this.caches.pages.holdsFresh(keys[i] as string, answers[i])) return false
    }
    for (let i = 0; i < keys.length; i++) this.onLookup('HIT', 'pages')
    return true
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
    } catch (error) {
      // Every slot to the CMS taken for all of the queue's wait: calls are in flight, the CMS is there. A saturated CMS
      // must not make every gateway unready at once, which would take the stored pages out of reach too.
      return (error as { code?: string }).code === 'UPSTREAM_BUSY'
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
    if (!operation || context.preview) return undefined
    const key = this.pagesKey(operation, variables)
    return key === undefined ? undefined : this.caches.pages.peek(key)
  }

  /** The cache's answer to an operation while it is fresh, without asking Craft; nothing in a preview. What decides a 404 without a call (PayloadBuilder.knownMissing). */
  freshNamed(name: OperationName, variables: Record<string, unknown>, context: RunContext): UpstreamAnswer | undefined {
    const operation = this.byName.get(name)
    if (!operation || context.preview) return undefined
    const key = this.pagesKey(operation, variables)
    return key === undefined ? undefined : this.caches.pages.fresh(key)?.answer
  }

  runNamed(name: OperationName, variables: Record<string, unknown>, context: RunContext): Promise<CacheLookup> {
    const operation = this.byName.get(name)
    if (!operation) throw new OperationNotAllowedError(name)
    return this.run(operation, variables, context)
  }

  /**
   * The answer of an allowlisted operation, for a page (the pages' cache, shared
   * with other gateways) or for a caller of /api: a cache of its own, in this
   * gateway's memory only, so that however many distinct requests arrive they
   * never push the pages' data out. /api is answered from the pages' cache
   * while that holds the answer fresh; it never stores there.
   */
  async run(operation: AllowedOperation, variables: Record<string, unknown>, context: RunContext, audience: CacheAudience = 'pages'): Promise<CacheLookup> {
    // A page's variables are the gateway's own (from its route table, a slug that matched its pattern): only a caller's are checked.
    if (audience === 'api') checkVariables(operation, variables)
    if (this.unavailable.has(operation.name)) throw new OperationUnavailableError(operation.name)
    const key = context.preview ? undefined : this.pagesKey(operation, variables)
    // A fresh answer (the pages' own, which /api may read too) is the common case: it needs none of what a load does.
    const fresh = key === undefined ? undefined : this.caches.pages.fresh(key)
    if (fresh) {
      this.onLookup(fresh.status, audience)
      return fresh
    }
    const load = (purpose: LoadPurpose = 'miss'): Promise<UpstreamAnswer> => {
      if (purpose === 'miss') this.onRequestCall(context)
      return this.client
        .query({
          query: operation.query,
          variables,
          operationName: operation.name,
          token: context.token,
          requestId: context.requestId,
        })
        .then((answer) => sanitizeAnswer(withRootFields(operation, answer), this.onDroppedLink))
    }
    // Both lists come from one walk of the answer.
    const origins = new WeakMap<UpstreamAnswer, Origins>()
    const originsOfAnswer = (answer: UpstreamAnswer): Origins => {
      let found = origins.get(answer)
      if (!found) origins.set(answer, (found = originsOf(operation, variables, answer, context.preview ? undefined : this.remember)))
      return found
    }
    if (key === undefined) {
      this.onLookup('BYPASS', audience)
      const answer = await load()
      const { sections, entries } = originsOfAnswer(answer)
      return { answer, status: 'BYPASS', tags: [...sections, ...entries.map(entryTag)] }
    }
    const fetched = await this.caches[audience].fetch(key, load, {
      // A CMS answer that gets here has its root fields (withRootFields); an entry from Redis is checked for them here.
      storable: (answer) => answer.status >= 200 && answer.status < 300 && answer.body.errors === undefined && hasRootFields(operation, answer),
      sections: (answer) => originsOfAnswer(answer).sections,
      entries: (answer) => originsOfAnswer(answer).entries,
      adopt: (answer) => sanitizeAnswer(answer, this.onDroppedLink),
    })
    this.onLookup(fetched.status, audience)
    return audience === 'pages' ? { ...fetched, key } : fetched
  }
}
