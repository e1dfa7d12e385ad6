import { readFileSync } from 'node:fs'
import {
  buildASTSchema,
  type DocumentNode,
  type FieldDefinitionNode,
  type GraphQLSchema,
  type InterfaceTypeDefinitionNode,
  Kind,
  type ObjectTypeDefinitionNode,
  parse,
  print,
} from 'graphql'
import { createContentModel, type ContentModel, type FieldDefinition, RESERVED_FIELD_HANDLES } from '../../shared/content-model.ts'
import { assetTypeName, type CraftVersion, entryTypeName, globalSetTypeName, tableRowTypeName } from '../../shared/craft-naming.ts'

/**
 * Craft's reference schema of one major (test/fixtures/craft, generated from
 * Craft's documentation) with the site's content model added as that major
 * names and types it.
 */

const fixtureCache = new Map<CraftVersion, DocumentNode>()

function referenceDocument(version: CraftVersion): DocumentNode {
  let document = fixtureCache.get(version)
  if (!document) {
    document = parse(readFileSync(new URL(`../fixtures/craft/craft${version}-reference.graphql`, import.meta.url), 'utf8'))
    fixtureCache.set(version, document)
  }
  return document
}

function interfaceNode(document: DocumentNode, name: string): InterfaceTypeDefinitionNode {
  const node = document.definitions.find((definition): definition is InterfaceTypeDefinitionNode => definition.kind === Kind.INTERFACE_TYPE_DEFINITION && definition.name.value === name)
  if (!node) throw new Error(`the reference schema has no ${name}`)
  return node
}

/** The fields of each interface Craft documents for that major. */
export function referenceInterfaceFields(version: CraftVersion): Map<string, Set<string>> {
  const result = new Map<string, Set<string>>()
  for (const definition of referenceDocument(version).definitions) {
    if (definition.kind === Kind.INTERFACE_TYPE_DEFINITION) result.set(definition.name.value, new Set((definition.fields ?? []).map((field) => field.name.value)))
  }
  return result
}

/** The arguments of a root query, as SDL (`(id: [QueryArgument], …)`), for relation fields that take them. */
function queryArguments(document: DocumentNode, query: string): string {
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION || definition.name.value !== 'Query') continue
    const field = definition.fields?.find((candidate) => candidate.name.value === query)
    if (!field) break
    return `(${(field.arguments ?? []).map((argument) => print(argument)).join(', ')})`
  }
  throw new Error(`the reference schema has no ${query} query`)
}

/**
 * Craft refuses an entry type whose layout has a field named like a native
 * entry field (craftcms/cms issues 2797 and 16684); in GraphQL it would clash
 * with the interface's field. Global sets likewise against GlobalSetInterface.
 */
function assertNoNativeHandles(model: ContentModel, document: DocumentNode): void {
  const entryFields = new Set(interfaceNode(document, 'EntryInterface').fields?.map((field) => field.name.value))
  const globalSetFields = new Set(interfaceNode(document, 'GlobalSetInterface').fields?.map((field) => field.name.value))
  for (const { section, type, fields } of model.entryTypes) {
    for (const { handle } of fields) {
      if (RESERVED_FIELD_HANDLES.has(handle) || entryFields.has(handle)) {
        throw new Error(`entry type ${section}/${type}: the field handle "${handle}" is a native entry field, which Craft refuses (craftcms/cms#2797, #16684)`)
      }
    }
  }
  for (const { handle } of model.globalSet.fields) {
    if (globalSetFields.has(handle)) throw new Error(`global set ${model.globalSet.handle}: the field handle "${handle}" is a native global set field`)
  }
}

/** A custom field as Craft generates it (craftcms/cms src/fields/*::getContentGqlType). */
function customField({ handle, field }: FieldDefinition, document: DocumentNode): string {
  switch (field.kind) {
    case 'plainText':
    case 'richText':
      return `${handle}: String`
    case 'dropdown':
      return `${handle}(label: Boolean): String`
    case 'number':
      return `${handle}: Number`
    case 'date':
      return `${handle}: DateTime`
    case 'entries':
      return `${handle}${queryArguments(document, 'entries')}: [EntryInterface]!`
    case 'assets':
      return `${handle}${queryArguments(document, 'assets')}: [AssetInterface]!`
    case 'table':
      return `${handle}: [${tableRowTypeName(handle)}]`
  }
}

/** Craft keys table columns `col1`, `col2`, … and gives each cell under its key and its handle. */
function tableRowType(handle: string, columns: readonly string[]): string {
  const cells = columns.flatMap((column, index) => [`col${index + 1}: String`, `${column}: String`])
  return `type ${tableRowTypeName(handle)} {\n  ${cells.join('\n  ')}\n}`
}

function objectType(name: string, implemented: InterfaceTypeDefinitionNode, custom: string[]): string {
  const native = (implemented.fields ?? []).map((field: FieldDefinitionNode) => print(field))
  return `type ${name} implements ${implemented.name.value} {\n  ${[...native, ...custom].join('\n  ')}\n}`
}

/** Entry types by their GraphQL name; Craft 5 entry types are global, so one handle in two sections is one type. */
function entryTypesByName(model: ContentModel, version: CraftVersion): Map<string, Map<string, FieldDefinition>> {
  const types = new Map<string, Map<string, FieldDefinition>>()
  for (const { section, type, fields } of model.entryTypes) {
    const name = entryTypeName(version, section, type)
    const merged = types.get(name) ?? new Map<string, FieldDefinition>()
    for (const field of fields) {
      const known = merged.get(field.handle)
      if (known && JSON.stringify(known.field) !== JSON.stringify(field.field)) throw new Error(`${name}: field ${field.handle} has two definitions`)
      merged.set(field.handle, field)
    }
    types.set(name, merged)
  }
  return types
}

/** One row type per Table field: field handles are global in Craft, so one handle is one field. */
function tableRowTypes(fields: FieldDefinition[]): string[] {
  const columnsByHandle = new Map<string, readonly string[]>()
  for (const { handle, field } of fields) {
    if (field.kind !== 'table') continue
    const known = columnsByHandle.get(handle)
    if (known && known.join() !== field.columns.join()) throw new Error(`Table field ${handle} has two column sets`)
    columnsByHandle.set(handle, field.columns)
  }
  return [...columnsByHandle].map(([handle, columns]) => tableRowType(handle, columns))
}

export function referenceSchema(version: CraftVersion, product: string, model: ContentModel = createContentModel(product)): GraphQLSchema {
  const document = referenceDocument(version)
  assertNoNativeHandles(model, document)
  const entryInterface = interfaceNode(document, 'EntryInterface')
  const entryTypes = [...entryTypesByName(model, version)].map(([name, fields]) =>
    objectType(name, entryInterface, [...fields.values()].map((field) => customField(field, document))),
  )
  const { globalSet } = model
  const allFields = [...model.entryTypes.flatMap(({ fields }) => fields), ...globalSet.fields]
  const content = [
    ...entryTypes,
    objectType(globalSetTypeName(globalSet.handle), interfaceNode(document, 'GlobalSetInterface'), globalSet.fields.map((field) => customField(field, document))),
    objectType(assetTypeName(model.assetVolume), interfaceNode(document, 'AssetInterface'), []),
    objectType('User', interfaceNode(document, 'UserInterface'), []),
    ...tableRowTypes(allFields),
  ]
  const added = parse(content.join('\n\n')).definitions as readonly ObjectTypeDefinitionNode[]
  return buildASTSchema({ ...document, definitions: [...document.definitions, ...added] })
}
