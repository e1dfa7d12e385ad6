import { readFileSync, readdirSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type DocumentNode, type GraphQLSchema, TypeInfo, graphql, parse, validate, visit, visitWithTypeInfo } from 'graphql'
import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import type { ContentStore } from '../../gateway/embedded-cms/content-store.ts'
import type { ContentModel } from '../../shared/content-model.ts'
import { entryTypeName, globalSetTypeName } from '../../shared/craft-naming.ts'
import type { PagePayload } from '../../shared/payload.ts'
import type { RouteDefinition, RouteTable } from '../../shared/routes.ts'

/**
 * A page's way through the code, as tables read from one checkout (the
 * repository, or a temporary copy a recipe test changed): the content model,
 * the documents, the route table, the embedded CMS's schema and content, the
 * screens, the table of docs/craft.md, and the text of the code that uses
 * the data. `pipelineProblems` says where they disagree.
 */
export interface PagePipeline {
  product: string
  /** The single sections' handles, and the channels' (shared/sections.ts). */
  singles: string[]
  channels: string[]
  model: ContentModel
  operations: Readonly<Record<string, string>>
  routes: RouteTable
  schema: GraphQLSchema
  store: ContentStore
  /** The content files as they are on disk (before `{product}` is resolved). */
  contentText: string
  screens: Record<string, (props: { payload: PagePayload; deferred: null }) => unknown>
  /** docs/craft.md's table, and the one the code makes. */
  craftTable: { documented: string; made: string }
  /** shared/content-types.ts. */
  contentTypes: string
  /** The code that reads a page's data: renderer/ and gateway/ outside the embedded CMS. */
  readers: string
}

const sourcesBelow = (dir: string, skip: (path: string) => boolean = () => false): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !skip(path))

/** Where a file of the renderer is, wherever the renderer keeps its screens (renderer/screens/, renderer/app/screens/). */
export function rendererFile(root: string, name: string): string {
  const found = sourcesBelow(join(root, 'renderer')).find((path) => path.endsWith(`/${name}`))
  if (!found) throw new Error(`no renderer file ${name} under ${root}/renderer`)
  return found
}

const load = <T>(root: string, path: string): Promise<T> => import(pathToFileURL(isAbsolute(path) ? path : join(root, path)).href) as Promise<T>

/** The tables of the checkout at `root`, each module loaded from there. */
export async function loadPipeline(root: string): Promise<PagePipeline> {
  const { DEFAULT_SITE_HANDLE: product } = await load<typeof import('../../shared/constants.ts')>(root, 'shared/constants.ts')
  const { SINGLE_SECTIONS, CHANNELS, withProduct } = await load<typeof import('../../shared/sections.ts')>(root, 'shared/sections.ts')
  const { createContentModel } = await load<typeof import('../../shared/content-model.ts')>(root, 'shared/content-model.ts')
  const { createOperations } = await load<typeof import('../../shared/operations.ts')>(root, 'shared/operations.ts')
  const { createRouteTable } = await load<typeof import('../../shared/routes.ts')>(root, 'shared/routes.ts')
  const { ContentStore } = await load<typeof import('../../gateway/embedded-cms/content-store.ts')>(root, 'gateway/embedded-cms/content-store.ts')
  const { createCmsSchema } = await load<typeof import('../../gateway/embedded-cms/schema.ts')>(root, 'gateway/embedded-cms/schema.ts')
  const { craftModelTable } = await load<{ craftModelTable: (product: string) => string }>(root, 'scripts/craft-model.mjs')
  const { ALL_SCREENS } = await load<{ ALL_SCREENS: PagePipeline['screens'] }>(root, rendererFile(root, 'all-screens.ts'))
  const contentDir = join(root, 'gateway/embedded-cms/content')
  const store = ContentStore.fromDirectory(contentDir, product)
  const docs = readFileSync(join(root, 'docs/craft.md'), 'utf8')
  const made = craftModelTable(product)
  const begin = made.slice(0, made.indexOf('\n'))
  const end = made.slice(made.lastIndexOf('\n') + 1)
  return {
    product,
    singles: SINGLE_SECTIONS.map((template) => withProduct(template, product)),
    channels: Object.values(CHANNELS).map((channel) => channel.section),
    model: createContentModel(product),
    operations: createOperations(product),
    routes: createRouteTable(product),
    schema: createCmsSchema(store, { version: 5 }),
    store,
    contentText: readdirSync(contentDir).map((name) => readFileSync(join(contentDir, name), 'utf8')).join('\n'),
    screens: ALL_SCREENS,
    craftTable: { documented: docs.slice(docs.indexOf(begin), docs.indexOf(end) + end.length), made },
    contentTypes: readFileSync(join(root, 'shared/content-types.ts'), 'utf8'),
    readers: [...sourcesBelow(join(root, 'renderer')), ...sourcesBelow(join(root, 'gateway'), (path) => path.includes('/embedded-cms/'))]
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n'),
  }
}

/** `Type.field` for every custom field a document selects on an entry type or the global set. */
function customSelections(pipeline: PagePipeline, document: DocumentNode): Set<string> {
  const custom = new Set(customFieldsByType(pipeline).keys())
  const typeInfo = new TypeInfo(pipeline.schema)
  const selected = new Set<string>()
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType()?.name
        if (parent && custom.has(`${parent}.${node.name.value}`)) selected.add(`${parent}.${node.name.value}`)
      },
    }),
  )
  return selected
}

/** Every custom field of the model by `Type.field` (Craft 5's type names), with its handle. */
function customFieldsByType(pipeline: PagePipeline): Map<string, string> {
  const fields = new Map<string, string>()
  for (const entryType of pipeline.model.entryTypes) {
    for (const { handle } of entryType.fields) fields.set(`${entryTypeName(5, entryType.section, entryType.type)}.${handle}`, handle)
  }
  for (const { handle } of pipeline.model.globalSet.fields) fields.set(`${globalSetTypeName(pipeline.model.globalSet.handle)}.${handle}`, handle)
  return fields
}

const routeOperations = (routes: readonly RouteDefinition[]): Set<string> => new Set(routes.flatMap((route) => route.loaders.map((loader) => loader.operation)))

/** The documents the gateway sends besides the routes' own. */
const GATEWAY_OPERATIONS = ['NotFound', 'Redirects', 'Sitemap']

/** Sections and their documents: every single has a route; every document a route loads exists and is valid against the embedded schema; every channel is read. */
function sectionAndDocumentProblems(pipeline: PagePipeline, problems: string[]): Map<string, DocumentNode> {
  const { operations, routes } = pipeline
  const handles = new Set(routes.routes.flatMap((route) => (route.handle ? [route.handle] : [])))
  for (const single of pipeline.singles) if (!handles.has(single)) problems.push(`single ${single}: no route shows it (shared/routes.ts)`)
  const sent = [...routeOperations(routes.routes), ...GATEWAY_OPERATIONS]
  const parsed = new Map<string, DocumentNode>()
  for (const name of sent) {
    const document = operations[name]
    if (document === undefined) {
      problems.push(`operation ${name}: a route loads it, but shared/operations.ts has no such document`)
      continue
    }
    const ast = parse(document)
    parsed.set(name, ast)
    for (const error of validate(pipeline.schema, ast)) problems.push(`operation ${name}: ${error.message} (the content model, shared/content-model.ts, or the document)`)
  }
  for (const channel of pipeline.channels) {
    if (!sent.some((name) => operations[name]?.includes(`section: "${channel}"`))) problems.push(`section ${channel}: no route's document lists it (shared/routes.ts)`)
  }
  return parsed
}

/** Every field of the model is read by a document, typed, and used by a screen (or the gateway). */
function fieldProblems(pipeline: PagePipeline, documents: Iterable<DocumentNode>, problems: string[]): void {
  const selected = new Set([...documents].flatMap((ast) => [...customSelections(pipeline, ast)]))
  for (const [typeField, handle] of customFieldsByType(pipeline)) {
    if (!selected.has(typeField)) {
      problems.push(`field ${typeField}: in the content model, but no document reads it (shared/operations.ts)`)
      continue
    }
    const typed = new RegExp(`\\b${handle}\\??:`)
    if (!typed.test(pipeline.contentTypes) && !typed.test(pipeline.readers)) problems.push(`field ${typeField}: read, but not typed in shared/content-types.ts`)
    if (!new RegExp(`\\b${handle}\\b`).test(pipeline.readers)) problems.push(`field ${typeField}: read, but no screen or gateway code uses it`)
  }
}

/** The embedded content has entries of every section (redirects may be none) and a value for every field. */
function contentProblems(pipeline: PagePipeline, problems: string[]): void {
  for (const entryType of pipeline.model.entryTypes) {
    const entries = pipeline.store.findEntries({ section: [entryType.section] }, undefined)
    if (entries.length === 0) {
      if (entryType.section !== 'redirects') problems.push(`section ${entryType.section}: no entry in gateway/embedded-cms/content/`)
      continue
    }
    for (const { handle } of entryType.fields) {
      if (!entries.some((entry) => entry.fields[handle] !== undefined)) problems.push(`field ${entryType.section}.${handle}: no entry of the embedded content has a value`)
    }
  }
}

/** Every route's data is read by a screen, its screen exists, and a page of its own (a single's) is reached by a link: the navigation, another page's text, or a screen. */
function pageProblems(pipeline: PagePipeline, problems: string[]): void {
  for (const route of pipeline.routes.routes) {
    for (const loader of route.loaders) {
      if (loader.key !== 'site' && !new RegExp(`['".]${loader.key}\\b`).test(pipeline.readers)) problems.push(`route ${route.id}: no screen reads its data '${loader.key}'`)
    }
    if (!pipeline.screens[route.screen]) problems.push(`route ${route.id}: no screen component '${route.screen}'`)
  }
  const ownPages = new Set(pipeline.routes.routes.flatMap((route) => (route.handle === undefined ? [] : [route.canonical])))
  for (const path of ownPages) {
    const linked = [`"${path}"`, `href=\\"${path}\\"`].some((link) => pipeline.contentText.includes(link)) || pipeline.readers.includes(`"${path}"`)
    if (path !== '/' && !linked) problems.push(`page ${path}: no link to it in the navigation or the content (gateway/embedded-cms/content/site-globals.json)`)
  }
}

/**
 * Where the tables disagree, one line each; none when a page's way through
 * the code is whole. What each check catches is the step of a recipe in
 * docs/development.md that was left out.
 */
export function pipelineProblems(pipeline: PagePipeline): string[] {
  const problems: string[] = []
  const documents = sectionAndDocumentProblems(pipeline, problems)
  fieldProblems(pipeline, documents.values(), problems)
  contentProblems(pipeline, problems)
  pageProblems(pipeline, problems)
  if (pipeline.craftTable.documented !== pipeline.craftTable.made) problems.push('docs/craft.md: the table of the Craft model is out of date (npm run craft-model -- --write docs/craft.md)')
  return problems
}

/** The HTML of the screen of a path, with the data its loaders get from the embedded CMS. */
export async function renderPath(pipeline: PagePipeline, path: string): Promise<string> {
  const found = pipeline.routes.match(path)
  if (found.kind !== 'route') throw new Error(`${path}: no route`)
  const data: Record<string, unknown> = {}
  for (const loader of found.route.loaders) {
    const answer = await graphql({
      schema: pipeline.schema,
      source: pipeline.operations[loader.operation] ?? '',
      variableValues: loader.variables({ site: pipeline.product, params: found.params, page: 1 }),
      contextValue: { token: undefined },
    })
    if (answer.errors?.length) throw new Error(`${path}: ${loader.operation}: ${answer.errors[0]?.message}`)
    data[loader.key] = answer.data
  }
  const payload: PagePayload = {
    path,
    fullPath: path,
    routeId: found.route.id,
    screen: found.route.screen,
    status: 200,
    data,
    pending: [],
    page: 1,
    preview: false,
    siteUrl: 'https://www.example.nl',
    canonicalPath: path,
  }
  const screen = pipeline.screens[found.route.screen]
  if (!screen) throw new Error(`${path}: no screen ${found.route.screen}`)
  return renderToStaticMarkup(createElement(screen as never, { payload, deferred: null }))
}
