import {
  type GraphQLFieldResolver,
  GraphQLInterfaceType,
  GraphQLObjectType,
  type GraphQLSchema,
  buildSchema,
} from 'graphql'
import { type FieldDefinition, createContentModel } from '../../shared/content-model.ts'
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

const ENTRY_ARGS = `section: [String], type: [String], site: [String], slug: [String], uri: [String], id: [QueryArgument], relatedTo: [QueryArgument], orderBy: String`

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
  const typeOfEntry = (section: string, type: string): string => entryTypeName(version, section, type)
  const entryFields = entryBaseFields(version)
  const seenTables = new Set<string>()
  const extraTypes: string[] = []
  for (const entryType of model.entryTypes) {
    extraTypes.push(...tableTypes(entryType.fields, seenTables))
    extraTypes.push(
      `type ${typeOfEntry(entryType.section, entryType.type)} implements EntryInterface {\n  ${entryFields}\n  ${entryType.fields.map(fieldSdl).join('\n  ')}\n}`,
    )
  }
  extraTypes.push(...tableTypes(model.globalSet.fields, seenTables))
  const globalSetType = globalSetTypeName(model.globalSet.handle)
  extraTypes.push(
    `type ${globalSetType} implements GlobalSetInterface {\n  id: ID\n  name: String!\n  handle: String!\n  ${model.globalSet.fields.map(fieldSdl).join('\n  ')}\n}`,
  )
  const assetType = assetTypeName(model.assetVolume)

  const sdl = `
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

type ${assetType} implements AssetInterface {
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

  const setResolveType = (name: string, resolveType: (value: never) => string): void => {
    const type = schema.getType(name)
    if (type instanceof GraphQLInterfaceType) type.resolveType = resolveType as (value: unknown) => string
  }
  setResolveType('EntryInterface', (entry: StoredEntry) => typeOfEntry(entry.section, entry.type))
  setResolveType('AssetInterface', () => assetType)
  setResolveType('UserInterface', () => 'User')
  setResolveType('GlobalSetInterface', (set: StoredGlobalSet) => globalSetTypeName(set.handle))

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
      target.resolve = (parent: { fields: Record<string, unknown> }, _args: unknown, ctx: CmsContext, info) => {
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
  }

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
  }
  for (const entryType of model.entryTypes) {
    attach(typeOfEntry(entryType.section, entryType.type), entryType.fields, entryBase as Record<string, GraphQLFieldResolver<never, CmsContext>>)
  }
  attach(globalSetType, model.globalSet.fields, {
    id: ((set: StoredGlobalSet) => `global-${set.handle}`) as GraphQLFieldResolver<never, CmsContext>,
  })
  attach('User', [], {
    fullName: ((user: StoredUser) => fullName(user)) as GraphQLFieldResolver<never, CmsContext>,
    friendlyName: ((user: StoredUser) => user.firstName ?? user.username) as GraphQLFieldResolver<never, CmsContext>,
    name: ((user: StoredUser) => fullName(user) ?? user.username) as GraphQLFieldResolver<never, CmsContext>,
    uid: ((user: StoredUser) => `uid-user-${user.id}`) as GraphQLFieldResolver<never, CmsContext>,
    status: (() => 'active') as GraphQLFieldResolver<never, CmsContext>,
  })
  type AssetResolver = GraphQLFieldResolver<TransformedAsset, CmsContext, TransformArgs>
  const url: AssetResolver = (asset, args, _ctx, info) => assetUrl(transformedPath(asset, effectiveTransform(asset, args, info)))
  const width: AssetResolver = (asset, args, _ctx, info) => transformedSize(asset, effectiveTransform(asset, args, info)).width
  const height: AssetResolver = (asset, args, _ctx, info) => transformedSize(asset, effectiveTransform(asset, args, info)).height
  // Craft's srcset(sizes: ["480w", …]): the transforms that exist, in the asset's transform (its format), as a srcset attribute value.
  const srcset: GraphQLFieldResolver<TransformedAsset, CmsContext, { sizes: (string | null)[] }> = (asset, args) =>
    srcsetOf(asset, args.sizes, asset.appliedTransform, assetUrl)
  attach(assetType, [], { url, width, height, srcset } as Record<string, GraphQLFieldResolver<never, CmsContext>>)
  return schema
}
