import { type GraphQLSchema, buildClientSchema, getIntrospectionQuery, isInterfaceType, parse, validate } from 'graphql'
import type { FastifyBaseLogger } from 'fastify'
import { type ContentModel, createContentModel } from '../../shared/content-model.ts'
import { type CraftVersion, entryTypeName, globalSetTypeName } from '../../shared/craft-naming.ts'
import { type OperationName, type Operations, type SchemaFeatures, createOperations } from '../../shared/operations.ts'
import type { CraftClient } from './client.ts'

/**
 * Where the check of Craft's schema stands:
 * - `pending`: not checked yet;
 * - `ok`: every operation validates against Craft's schema;
 * - `failing`: some operations would be refused; their pages fail, the others work;
 * - `unreachable`: Craft did not answer (checked again);
 * - `refused`: Craft refused the schema token (checked again);
 * - `not checked`: introspection switched off here or in Craft; the configured naming is used.
 */
export type SchemaState = 'pending' | 'ok' | 'failing' | 'unreachable' | 'refused' | 'not checked'

export interface SchemaReport {
  state: SchemaState
  craftVersion: CraftVersion
  /** Operation -> Craft's reasons, for the operations its schema would refuse. */
  failing: Record<string, string[]>
}

export interface CraftSchemaOptions {
  client: CraftClient
  product: string
  /** The naming to use until Craft tells (and when introspection is off). */
  configuredVersion: CraftVersion
  introspection: boolean
  log: FastifyBaseLogger
  /** Told the documents in Craft's naming and the operations its schema refuses, after each check. */
  onOperations: (operations: Operations, unavailable: ReadonlyMap<OperationName, string>) => void
  /** First wait before checking again after a failed check; doubles up to maxRetryMs. */
  retryMs?: number
  maxRetryMs?: number
}

const INTROSPECTION_QUERY = getIntrospectionQuery({ descriptions: false, directiveIsRepeatable: false })
const REFUSED_STATUSES = new Set([400, 401, 403])

/** Which major's naming a schema uses: the one under which more of the site's entry types exist. */
export function detectVersion(schema: GraphQLSchema, model: ContentModel, fallback: CraftVersion): CraftVersion {
  const hits = (version: CraftVersion): number =>
    model.entryTypes.filter((entryType) => schema.getType(entryTypeName(version, entryType.section, entryType.type)) !== undefined).length
  const [four, five] = [hits(4), hits(5)]
  if (four === five) return fallback
  return five > four ? 5 : 4
}

/** Craft has entries' `author` only in a schema that may read users. */
export function schemaFeatures(schema: GraphQLSchema): SchemaFeatures {
  const entry = schema.getType('EntryInterface')
  return { author: isInterfaceType(entry) && entry.getFields().author !== undefined }
}

/** Craft's reason with what an administrator can do about it. */
function explain(message: string, model: ContentModel, version: CraftVersion): string {
  const unknownType = /Unknown type "([^"]+)"/.exec(message)?.[1]
  if (unknownType) {
    const entryType = model.entryTypes.find((candidate) => entryTypeName(version, candidate.section, candidate.type) === unknownType)
    if (entryType) {
      return `${message}: section "${entryType.section}" with entry type "${entryType.type}" is missing, or the GraphQL schema may not read it (allow "View entries" of section "${entryType.section}" in the schema's permissions)`
    }
    if (unknownType === globalSetTypeName(model.globalSet.handle)) {
      return `${message}: global set "${model.globalSet.handle}" is missing, or the GraphQL schema may not read it (allow "View global set" "${model.globalSet.handle}" in the schema's permissions)`
    }
  }
  const field = /Cannot query field "([^"]+)" on type "([^"]+)"/.exec(message)
  if (field) return `${message}: the field "${field[1]}" is missing from "${field[2]}" in Craft (a field layout without it, or a custom field with another handle)`
  const query = /Cannot query field "([^"]+)" on type "Query"/.exec(message)
  if (query) return `${message}: the GraphQL schema may not query "${query[1]}"`
  return message
}

/** The operations of one naming that Craft's schema would refuse, with Craft's reasons. */
export function refusedOperations(schema: GraphQLSchema, operations: Operations, model: ContentModel, version: CraftVersion): Map<OperationName, string[]> {
  const refused = new Map<OperationName, string[]>()
  for (const [name, document] of Object.entries(operations) as [OperationName, string][]) {
    const errors = validate(schema, parse(document))
    if (errors.length > 0) refused.set(name, [...new Set(errors.map((error) => explain(error.message, model, version)))])
  }
  return refused
}

/**
 * Learns Craft's schema at start-up through introspection with the schema
 * token: which major's type names it uses (the documents are made in that
 * naming) and which documents it would refuse (their pages fail with 502
 * without asking Craft; every other page works). A Craft that cannot be
 * reached or refuses the token is asked again, with a growing pause.
 */
export class CraftSchema {
  private report: SchemaReport
  private running: Promise<void> | undefined
  private timer: NodeJS.Timeout | undefined
  private nextRetryMs: number
  private closed = false
  private started = false
  private readonly model: ContentModel
  /** What was last logged, so a state that persists is logged once. */
  private lastLogged = ''

  constructor(private readonly options: CraftSchemaOptions) {
    this.model = createContentModel(options.product)
    this.nextRetryMs = options.retryMs ?? 1000
    this.report = { state: options.introspection ? 'pending' : 'not checked', craftVersion: options.configuredVersion, failing: {} }
  }

  get status(): SchemaReport {
    return this.report
  }

  /** Whether pages can be served: the check has an answer from Craft, or is switched off. */
  get ready(): boolean {
    return this.report.state === 'ok' || this.report.state === 'failing' || this.report.state === 'not checked'
  }

  /** Starts the first check (once, when the gateway listens). */
  start(): void {
    if (!this.options.introspection || this.closed || this.started) return
    this.started = true
    this.runNow()
  }

  /** Resolves when the check in flight (if any) is done: a caller then reads `status`. */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve()
  }

  close(): void {
    this.closed = true
    clearTimeout(this.timer)
  }

  private async run(): Promise<void> {
    const { client, log } = this.options
    let schema: GraphQLSchema
    try {
      const answer = await client.query({ query: INTROSPECTION_QUERY, operationName: 'IntrospectionQuery' })
      const data = answer.body.data as Parameters<typeof buildClientSchema>[0] | null | undefined
      if (REFUSED_STATUSES.has(answer.status)) return this.retry('refused', { status: answer.status }, 'Craft refused the GraphQL schema token (CRAFT_SCHEMA_TOKEN); not ready')
      if (!data?.__schema) {
        const reasons = (answer.body.errors ?? []).map((error) => error.message)
        this.settle({ state: 'not checked', craftVersion: this.options.configuredVersion, failing: {} }, 'warn', { reasons }, `Craft answered no schema (introspection switched off?); using Craft ${this.options.configuredVersion} naming (CRAFT_VERSION) unchecked`)
        return
      }
      schema = buildClientSchema(data)
    } catch (error) {
      const status = (error as { upstreamStatus?: number }).upstreamStatus
      if (status !== undefined && REFUSED_STATUSES.has(status)) {
        return this.retry('refused', { status }, 'Craft refused the GraphQL schema token (CRAFT_SCHEMA_TOKEN); not ready')
      }
      return this.retry('unreachable', { err: error }, 'Craft could not be asked for its schema; not ready, asking again')
    }

    const version = detectVersion(schema, this.model, this.options.configuredVersion)
    const features = schemaFeatures(schema)
    const operations = createOperations(this.options.product, version, features)
    const refused = refusedOperations(schema, operations, this.model, version)
    const failing = Object.fromEntries(refused)
    // A check that finds what the last one found says nothing new: each refusal is logged once.
    if (`failing:${JSON.stringify(failing)}` !== this.lastLogged) {
      for (const [operation, reasons] of refused) log.error({ operation, reasons, craftVersion: version }, `Craft's schema refuses ${operation}: the pages that need it answer 502`)
    }
    this.options.onOperations(operations, new Map([...refused].map(([name, reasons]) => [name, reasons.join('; ')])))
    if (refused.size === 0) {
      const authors = features.author ? '' : '; it may not read users, so articles show no author'
      this.settle({ state: 'ok', craftVersion: version, failing }, 'info', { craftVersion: version, ...features }, `Craft's schema accepts every operation (Craft ${version} naming${authors})`)
    } else {
      this.settle({ state: 'failing', craftVersion: version, failing }, 'warn', { craftVersion: version, failing: [...refused.keys()] }, 'some operations are refused by Craft; checking again')
      this.schedule()
    }
  }

  private settle(report: SchemaReport, level: 'info' | 'warn', details: object, message: string): void {
    this.report = report
    const key = `${report.state}:${JSON.stringify(report.failing)}`
    if (key !== this.lastLogged) this.options.log[level](details, message)
    this.lastLogged = key
    if (report.state === 'ok' || report.state === 'not checked') this.nextRetryMs = this.options.retryMs ?? 1000
  }

  private retry(state: 'unreachable' | 'refused', details: object, message: string): void {
    const key = state
    if (key !== this.lastLogged) this.options.log.error(details, message)
    this.lastLogged = key
    this.report = { ...this.report, state }
    this.schedule()
  }

  private schedule(): void {
    if (this.closed) return
    clearTimeout(this.timer)
    const wait = this.nextRetryMs
    this.nextRetryMs = Math.min(wait * 2, this.options.maxRetryMs ?? 60_000)
    this.timer = setTimeout(() => this.runNow(), wait)
    this.timer.unref()
  }

  private runNow(): void {
    this.running ??= this.run().finally(() => {
      this.running = undefined
    })
  }
}
