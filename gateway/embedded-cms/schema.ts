import {
  type GraphQLFieldResolver,
  GraphQLInterfaceType,
  GraphQLObjectType,
  type GraphQLSchema,
  buildSchema,
} from 'graphql'
import { type ContentModel, type FieldDefinition, createContentModel } from '../../shared/content-model.ts'
import { type CraftVersion, assetTypeName, entryTypeName, globalSetTypeName, tableRowTypeName } from '../../shared/craft-naming.ts'
import type { ContentStore, EntryQuery, StoredEntry, StoredGlobalSet, StoredUser } from './content-store.ts'
import {
  TRANSFORM_ARGS_SDL,
  TRANSFORM_DIRECTIVE,
  type TransformArgs,
  type TransformedAsset,
  directiveTransform,
  effectiveTransform,
  srcsetOf,
  transformedPath,
  transformedSize,
  withTransform,
} from './transforms.ts'

export interface CmsContext {
  token: string | undefined
}

export interface CmsSchemaOptions {
  /** Whose type names to use: Craft 5's `{type}_Entry` or Craft 4's `{section}_{type}_Entry`. */
  version: CraftVersion
  /** Makes a stored asset path absolute, as Craft's volume base URL does; as stored by default. */
  assetUrl?: (path: string) => string
}

/**
 * An entry's `status` as Craft gives it (craftcms/cms Entry::getStatus):
 * `live` once enabled and its post date has come, `pending` before that,
 * `enabled` without a post date (a new entry's draft, never published), and
 * `disabled`. What a preview shows of a draft is told by this and `isDraft`.
 */
export function entryStatus(entry: Pick<StoredEntry, 'enabled' | 'postDate'>, now: number): 'live' | 'pending' | 'enabled' | 'disabled' {
  if (!entry.enabled) return 'disabled'
  const posted = entry.postDate === null ? Number.NaN : Date.parse(entry.postDate)
  if (Number.isNaN(posted)) return 'enabled'
  return posted <= now ? 'live' : 'pending'
}

const ENTRY_ARGS = `section: [String], type: [String], site: [String], slug: [String], uri: [String], id: [QueryArgument], relatedTo: [QueryArgument], postDate: [String], orderBy: String`

/** The native fields of Craft's EntryInterface that the embedded content has (Craft 5 adds `authors`). */
function entryBaseFields(version: CraftVersion): string {
  return `id: ID
  uid: String
  title: String
  slug: String
  uri: String
  url: String
  postDate: DateTime
  dateUpdated: DateTime
  sectionHandle: String${version === 4 ? '!' : ''}
  typeHandle: String!
  enabled: Boolean
  status: String
  isDraft: Boolean
  draftId: Int
  isRevision: Boolean
  revisionId: Int
  authorId: Int
  prev(${ENTRY_ARGS}): EntryInterface
  next(${ENTRY_ARGS}): EntryInterface
  author: UserInterface${version === 5 ? '\n  authorIds: [Int]\n  authors: [UserInterface]' : ''}`
}

const USER_FIELDS = `id: ID
  uid: String
  status: String
  fullName: String
  firstName: String
  lastName: String
  friendlyName: String
  name: String!
  username: String`

/** Craft's `url`, `width` and `height` take the transform directive's arguments (transforms.ts). */
const ASSET_FIELDS = `id: ID
  uid: String
  title: String
  filename: String!
  url(${TRANSFORM_ARGS_SDL}): String
  width(${TRANSFORM_ARGS_SDL}): Int
  height(${TRANSFORM_ARGS_SDL}): Int
  alt: String
  mimeType: String
  srcset(sizes: [String]!): String`

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
      return `${handle}: [${tableRowTypeName(handle)}]`
  }
}

function tableTypes(fields: readonly FieldDefinition[], seen: Set<string>): string[] {
  const types: string[] = []
  for (const { handle, field } of fields) {
    if (field.kind !== 'table' || seen.has(handle)) continue
    seen.add(handle)
    types.push(`type ${tableRowTypeName(handle)} {\n  ${field.columns.map((column) => `${column}: String`).join('\n  ')}\n}`)
  }
  return types
}

function siteUrl(entry: StoredEntry): string | null {
  if (entry.uri === null) return null
  return entry.uri === '__home__' ? '/' : `/${entry.uri}`
}

const fullName = (user: StoredUser): string | null => [user.firstName, user.lastName].filter(Boolean).join(' ') || null

/** The names of the schema's types that depend on the content model and Craft's major. */
interface CmsTypeNames {
  entry(section: string, type: string): string
  asset: string
  globalSet: string
}

function typeNamesOf(version: CraftVersion, model: ContentModel): CmsTypeNames {
  return {
    entry: (section, type) => entryTypeName(version, section, type),
    asset: assetTypeName(model.assetVolume),
    globalSet: globalSetTypeName(model.globalSet.handle),
  }
}

/** The types of the content model: each entry type, the global set and the rows of their Table fields. */
function contentTypesSdl(model: ContentModel, names: CmsTypeNames, entryFields: string): string[] {
  const seenTables = new Set<string>()
  const types: string[] = []
  for (const entryType of model.entryTypes) {
    types.push(...tableTypes(entryType.fields, seenTables))
    types.push(`type ${names.entry(entryType.section, entryType.type)} implements EntryInterface {\n  ${entryFields}\n  ${entryType.fields.map(fieldSdl).join('\n  ')}\n}`)
  }
  types.push(...tableTypes(model.globalSet.fields, seenTables))
  types.push(`type ${names.globalSet} implements GlobalSetInterface {\n  id: ID\n  name: String!\n  handle: String!\n  ${model.globalSet.fields.map(fieldSdl).join('\n  ')}\n}`)
  return types
}

function cmsSdl(version: CraftVersion, model: ContentModel, names: CmsTypeNames): string {
  const entryFields = entryBaseFields(version)
  return `
scalar DateTime
scalar Number
scalar QueryArgument

directive @${TRANSFORM_DIRECTIVE}(${TRANSFORM_ARGS_SDL}) on FIELD

interface EntryInterface {
  ${entryFields}
}

interface AssetInterface {
  ${ASSET_FIELDS}
}

type ${names.asset} implements AssetInterface {
  ${ASSET_FIELDS}
}

interface UserInterface {
  ${USER_FIELDS}
}

type User implements UserInterface {
  ${USER_FIELDS}
}

interface GlobalSetInterface {
  id: ID
  name: String!
  handle: String!
}

${contentTypesSdl(model, names, entryFields).join('\n\n')}

type Query {
  ping: String
  entry(${ENTRY_ARGS}): EntryInterface
  entries(${ENTRY_ARGS}, limit: Int, offset: Int): [EntryInterface]
  entryCount(${ENTRY_ARGS}): Int!
  globalSet(handle: [String], site: [String]): GlobalSetInterface
}
`
}

function resolveQueries(schema: GraphQLSchema, store: ContentStore): void {
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
  resolveQuery('entryCount', (_root, args, ctx) => store.countEntries(args, ctx.token))
  resolveQuery('globalSet', (_root, args) => store.globalSet(args.handle, args.site))
}

function resolveInterfaceTypes(schema: GraphQLSchema, names: CmsTypeNames): void {
  const setResolveType = (name: string, resolveType: (value: never) => string): void => {
    const type = schema.getType(name)
    if (type instanceof GraphQLInterfaceType) type.resolveType = resolveType as (value: unknown) => string
  }
  setResolveType('EntryInterface', (entry: StoredEntry) => names.entry(entry.section, entry.type))
  setResolveType('AssetInterface', () => names.asset)
  setResolveType('UserInterface', () => 'User')
  setResolveType('GlobalSetInterface', (set: StoredGlobalSet) => globalSetTypeName(set.handle))
}

type Resolvers = Record<string, GraphQLFieldResolver<never, CmsContext>>

/** A custom field's value as Craft gives it: related entries and assets (with the `@transform` asked for) by id, a Table without rows as null. */
function customFieldResolver(store: ContentStore, { handle, field }: FieldDefinition): GraphQLFieldResolver<{ fields: Record<string, unknown> }, CmsContext> {
  const kind = field.kind
  return (parent, _args, ctx, info) => {
    const value = parent.fields[handle]
    if (kind === 'entries') return store.entriesByIds(value, ctx.token)
    if (kind === 'assets') {
      // `image @transform(…) { url srcset(…) }`: Craft gives every asset of the field that transform.
      const transform = directiveTransform(info)
      const assets = store.assetsByIds(value)
      return transform ? assets.map((asset) => withTransform(asset, transform)) : assets
    }
    // Craft's Table field normalises "no rows saved" to null.
    if (kind === 'table') return Array.isArray(value) && value.length > 0 ? value : null
    return value ?? null
  }
}

/** Resolvers on a type of the schema: its native fields' (`base`) and its custom fields'. */
function attachResolvers(schema: GraphQLSchema, store: ContentStore, typeName: string, fields: readonly FieldDefinition[], base: Resolvers): void {
  const type = schema.getType(typeName)
  if (!(type instanceof GraphQLObjectType)) return
  const typeFields = type.getFields()
  for (const [name, resolve] of Object.entries(base)) {
    const target = typeFields[name]
    if (target) target.resolve = resolve as GraphQLFieldResolver<unknown, CmsContext>
  }
  for (const definition of fields) {
    const target = typeFields[definition.handle]
    if (target) target.resolve = customFieldResolver(store, definition) as GraphQLFieldResolver<unknown, CmsContext>
  }
}

/** Craft's native entry fields, from what the store keeps of an entry. */
function entryResolvers(store: ContentStore): Resolvers {
  // A draft's row number in Craft's `drafts` table: one per draft object, stable while the content is loaded.
  const draftIds = new WeakMap<StoredEntry, number>()
  let nextDraftId = 1
  const draftIdOf = (entry: StoredEntry): number => {
    const known = draftIds.get(entry)
    if (known !== undefined) return known
    const next = nextDraftId++
    draftIds.set(entry, next)
    return next
  }
  const entryBase: Record<string, GraphQLFieldResolver<StoredEntry, CmsContext>> = {
    uid: (entry) => `uid-${entry.id}`,
    url: (entry) => siteUrl(entry),
    sectionHandle: (entry) => entry.section,
    typeHandle: (entry) => entry.type,
    status: (entry) => entryStatus(entry, Date.now()),
    isDraft: (entry) => store.isDraft(entry),
    // Craft's isDraft is `draftId !== null` (provisional drafts included); the embedded content keeps no revisions.
    draftId: (entry) => (store.isDraft(entry) ? draftIdOf(entry) : null),
    isRevision: () => false,
    revisionId: () => null,
    authorId: (entry) => (entry.authorIds?.[0] === undefined ? null : Number(entry.authorIds[0])),
    author: (entry) => store.usersByIds(entry.authorIds)[0] ?? null,
    authorIds: (entry) => (entry.authorIds ?? []).map(Number),
    authors: (entry) => store.usersByIds(entry.authorIds),
    prev: ((entry: StoredEntry, args: EntryQuery, ctx: CmsContext) => store.adjacent(entry, args, ctx.token, -1)) as GraphQLFieldResolver<StoredEntry, CmsContext>,
    next: ((entry: StoredEntry, args: EntryQuery, ctx: CmsContext) => store.adjacent(entry, args, ctx.token, 1)) as GraphQLFieldResolver<StoredEntry, CmsContext>,
  }
  return entryBase as Resolvers
}

const USER_RESOLVERS = {
  fullName: ((user: StoredUser) => fullName(user)) as GraphQLFieldResolver<never, CmsContext>,
  friendlyName: ((user: StoredUser) => user.firstName ?? user.username) as GraphQLFieldResolver<never, CmsContext>,
  name: ((user: StoredUser) => fullName(user) ?? user.username) as GraphQLFieldResolver<never, CmsContext>,
  uid: ((user: StoredUser) => `uid-user-${user.id}`) as GraphQLFieldResolver<never, CmsContext>,
  status: (() => 'active') as GraphQLFieldResolver<never, CmsContext>,
}

/** An asset's `url`, `width` and `height` in the transform asked for (by argument or `@transform`), and its `srcset`. */
function assetResolvers(assetUrl: (path: string) => string): Resolvers {
  type AssetResolver = GraphQLFieldResolver<TransformedAsset, CmsContext, TransformArgs>
  const url: AssetResolver = (asset, args, _ctx, info) => assetUrl(transformedPath(asset, effectiveTransform(asset, args, info)))
  const width: AssetResolver = (asset, args, _ctx, info) => transformedSize(asset, effectiveTransform(asset, args, info)).width
  const height: AssetResolver = (asset, args, _ctx, info) => transformedSize(asset, effectiveTransform(asset, args, info)).height
  // Craft's srcset(sizes: ["480w", …]): the transforms that exist, in the asset's transform (its format), as a srcset attribute value.
  const srcset: GraphQLFieldResolver<TransformedAsset, CmsContext, { sizes: (string | null)[] }> = (asset, args) =>
    srcsetOf(asset, args.sizes, asset.appliedTransform, assetUrl)
  return { url, width, height, srcset } as Resolvers
}

/**
 * A Craft compatible GraphQL schema over the content store: Craft's query
 * arguments, its type names in the naming of the chosen major, its native
 * fields (the author is a user) and its field shapes (a Table field without
 * rows is null).
 */
export function createCmsSchema(store: ContentStore, options: CmsSchemaOptions): GraphQLSchema {
  const { version } = options
  const assetUrl = options.assetUrl ?? ((path: string) => path)
  const model = createContentModel(store.site)
  const names = typeNamesOf(version, model)
  const schema = buildSchema(cmsSdl(version, model, names))
  resolveQueries(schema, store)
  resolveInterfaceTypes(schema, names)
  const entryBase = entryResolvers(store)
  for (const entryType of model.entryTypes) {
    attachResolvers(schema, store, names.entry(entryType.section, entryType.type), entryType.fields, entryBase)
  }
  attachResolvers(schema, store, names.globalSet, model.globalSet.fields, {
    id: ((set: StoredGlobalSet) => `global-${set.handle}`) as GraphQLFieldResolver<never, CmsContext>,
  })
  attachResolvers(schema, store, 'User', [], USER_RESOLVERS)
  attachResolvers(schema, store, names.asset, [], assetResolvers(assetUrl))
  return schema
}
