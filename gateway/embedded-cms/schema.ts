import {
  type GraphQLFieldResolver,
  GraphQLInterfaceType,
  GraphQLObjectType,
  type GraphQLSchema,
  buildSchema,
} from 'graphql'
import { entryTypeName } from '../../shared/sections.ts'
import { type FieldDefinition, createContentModel } from './content-model.ts'
import type { ContentStore, EntryQuery, StoredAsset, StoredEntry, StoredGlobalSet } from './content-store.ts'

export interface CmsContext {
  token: string | undefined
}

const ENTRY_ARGS = `section: [String], type: [String], site: [String], slug: [String], uri: [String], id: [QueryArgument], relatedTo: [QueryArgument], orderBy: String`
const ENTRY_BASE_FIELDS = `id: ID
  uid: String
  title: String
  slug: String
  uri: String
  url: String
  postDate: DateTime
  dateUpdated: DateTime
  sectionHandle: String
  typeHandle: String
  enabled: Boolean
  status: String`

function fieldSdl({ handle, field }: FieldDefinition): string {
  switch (field.kind) {
    case 'plainText':
    case 'richText':
    case 'dropdown':
      return `${handle}: String`
    case 'number':
      return `${handle}: Number`
    case 'date':
      return `${handle}: DateTime`
    case 'entries':
      return `${handle}: [EntryInterface]`
    case 'assets':
      return `${handle}: [AssetInterface]`
    case 'table':
      return `${handle}: [${handle}_TableRow]`
  }
}

function tableTypes(fields: readonly FieldDefinition[], seen: Set<string>): string[] {
  const types: string[] = []
  for (const { handle, field } of fields) {
    if (field.kind !== 'table' || seen.has(handle)) continue
    seen.add(handle)
    types.push(`type ${handle}_TableRow {\n  ${field.columns.map((column) => `${column}: String`).join('\n  ')}\n}`)
  }
  return types
}

function siteUrl(entry: StoredEntry): string | null {
  if (entry.uri === null) return null
  return entry.uri === '__home__' ? '/' : `/${entry.uri}`
}

/**
 * A Craft 4 compatible GraphQL schema over the content store: Craft's query
 * arguments, its type names (`{section}_{type}_Entry`, `{handle}_GlobalSet`,
 * `{field}_TableRow`) and its field shapes.
 */
export function createCmsSchema(store: ContentStore): GraphQLSchema {
  const model = createContentModel(store.site)
  const seenTables = new Set<string>()
  const extraTypes: string[] = []
  for (const entryType of model.entryTypes) {
    extraTypes.push(...tableTypes(entryType.fields, seenTables))
    extraTypes.push(
      `type ${entryTypeName(entryType.section, entryType.type)} implements EntryInterface {\n  ${ENTRY_BASE_FIELDS}\n  ${entryType.fields.map(fieldSdl).join('\n  ')}\n}`,
    )
  }
  extraTypes.push(...tableTypes(model.globalSet.fields, seenTables))
  extraTypes.push(
    `type ${model.globalSet.handle}_GlobalSet implements GlobalSetInterface {\n  id: ID\n  name: String\n  handle: String\n  ${model.globalSet.fields.map(fieldSdl).join('\n  ')}\n}`,
  )

  const sdl = `
scalar DateTime
scalar Number
scalar QueryArgument

interface EntryInterface {
  ${ENTRY_BASE_FIELDS}
}

interface AssetInterface {
  id: ID
  title: String
  filename: String
  url: String
  width: Int
  height: Int
  alt: String
  mimeType: String
  srcset(sizes: [String]!): String
}

type images_Asset implements AssetInterface {
  id: ID
  title: String
  filename: String
  url: String
  width: Int
  height: Int
  alt: String
  mimeType: String
  srcset(sizes: [String]!): String
}

interface GlobalSetInterface {
  id: ID
  name: String
  handle: String
}

${extraTypes.join('\n\n')}

type Query {
  ping: String
  entry(${ENTRY_ARGS}): EntryInterface
  entries(${ENTRY_ARGS}, limit: Int, offset: Int): [EntryInterface]
  entryCount(${ENTRY_ARGS}): Int!
  globalSet(handle: [String], site: [String]): GlobalSetInterface
}
`
  const schema = buildSchema(sdl)

  const query = schema.getQueryType()
  if (!query) throw new Error('schema without Query type')
  const queryFields = query.getFields()
  const find = (args: EntryQuery, ctx: CmsContext): StoredEntry[] => store.findEntries(args, ctx.token)
  const resolveQuery = (name: string, resolve: GraphQLFieldResolver<unknown, CmsContext, EntryQuery & { handle?: string[]; site?: string[] }>): void => {
    const field = queryFields[name]
    if (field) field.resolve = resolve
  }
  resolveQuery('ping', () => 'pong')
  resolveQuery('entry', (_root, args, ctx) => find({ ...args, limit: 1 }, ctx)[0] ?? null)
  resolveQuery('entries', (_root, args, ctx) => find(args, ctx))
  resolveQuery('entryCount', (_root, args, ctx) => find({ ...args, limit: null, offset: null }, ctx).length)
  resolveQuery('globalSet', (_root, args) => store.globalSet(args.handle, args.site))

  const entryInterface = schema.getType('EntryInterface')
  if (entryInterface instanceof GraphQLInterfaceType) {
    entryInterface.resolveType = (entry: StoredEntry) => entryTypeName(entry.section, entry.type)
  }
  const assetType = schema.getType('images_Asset')
  const srcsetField = assetType instanceof GraphQLObjectType ? assetType.getFields().srcset : undefined
  if (srcsetField) {
    // Craft's srcset(sizes: ["480w", …]): the transforms that exist, as a srcset attribute value.
    srcsetField.resolve = (asset: StoredAsset, args: { sizes: (string | null)[] }) => {
      const parts = args.sizes.flatMap((size) => {
        const width = /^(\d+)w$/.exec(size ?? '')?.[1]
        const url = width ? asset.transforms?.[width] : undefined
        return url ? [`${url} ${width}w`] : []
      })
      return parts.length > 0 ? parts.join(', ') : null
    }
  }
  const assetInterface = schema.getType('AssetInterface')
  if (assetInterface instanceof GraphQLInterfaceType) assetInterface.resolveType = () => 'images_Asset'
  const globalSetInterface = schema.getType('GlobalSetInterface')
  if (globalSetInterface instanceof GraphQLInterfaceType) {
    globalSetInterface.resolveType = (set: StoredGlobalSet) => `${set.handle}_GlobalSet`
  }

  const attach = (typeName: string, fields: readonly FieldDefinition[], base: Record<string, GraphQLFieldResolver<never, CmsContext>>): void => {
    const type = schema.getType(typeName)
    if (!(type instanceof GraphQLObjectType)) return
    const typeFields = type.getFields()
    for (const [name, resolve] of Object.entries(base)) {
      const target = typeFields[name]
      if (target) target.resolve = resolve as GraphQLFieldResolver<unknown, CmsContext>
    }
    for (const definition of fields) {
      const target = typeFields[definition.handle]
      if (!target) continue
      const handle = definition.handle
      const kind = definition.field.kind
      target.resolve = (parent: { fields: Record<string, unknown> }, _args: unknown, ctx: CmsContext) => {
        const value = parent.fields[handle]
        if (kind === 'entries') return store.entriesByIds(value, ctx.token)
        if (kind === 'assets') return store.assetsByIds(value)
        if (kind === 'table') return Array.isArray(value) ? value : []
        return value ?? null
      }
    }
  }

  const entryBase: Record<string, GraphQLFieldResolver<StoredEntry, CmsContext>> = {
    uid: (entry) => `uid-${entry.id}`,
    url: (entry) => siteUrl(entry),
    sectionHandle: (entry) => entry.section,
    typeHandle: (entry) => entry.type,
    status: (entry) => (entry.enabled ? 'live' : 'disabled'),
  }
  for (const entryType of model.entryTypes) {
    attach(entryTypeName(entryType.section, entryType.type), entryType.fields, entryBase as Record<string, GraphQLFieldResolver<never, CmsContext>>)
  }
  attach(`${model.globalSet.handle}_GlobalSet`, model.globalSet.fields, {
    id: ((set: StoredGlobalSet) => `global-${set.handle}`) as GraphQLFieldResolver<never, CmsContext>,
  })
  return schema
}
