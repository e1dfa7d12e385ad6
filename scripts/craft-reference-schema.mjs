// Builds the Craft CMS 4 and 5 reference GraphQL schemas (SDL) that the
// conformance test checks the gateway's documents against, from the tables
// Craft generates into its own documentation (repository craftcms/docs:
// docs/4.x/graphql.md and docs/5.x/development/graphql.md): the "Query
// Reference" (BEGIN/END QUERIES), the directives (BEGIN/END DIRECTIVES) and
// the "Predefined interfaces" (BEGIN/END INTERFACES).
//
//   node scripts/craft-reference-schema.mjs <craft4.md> <craft5.md> [--out DIR]
//
// writes craft4-reference.graphql and craft5-reference.graphql to DIR
// (default test/fixtures/craft). What the tables do not say (return types,
// field arguments, input types) is added by hand below, each with its source;
// test/fixtures/craft/README.md lists the same.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { assertValidSchema, buildSchema, parse } from 'graphql'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const DEFAULT_OUT = join(ROOT, 'test', 'fixtures', 'craft')
const SOURCES = {
  4: 'craftcms/docs docs/4.x/graphql.md',
  5: 'craftcms/docs docs/5.x/development/graphql.md',
}
const BUILT_IN_SCALARS = new Set(['ID', 'String', 'Int', 'Boolean', 'Float'])

// The generic root queries and what they return. The tables give only the
// arguments; the return types are those of craftcms/cms src/gql/queries/*.php
// (list of the interface, the interface, `Int!` for the counts). Every other
// query in the tables (`blogEntries`, `aboutEntry`, …) is an example of a
// site's own section and stays out.
const GENERIC_QUERIES = {
  entries: '[EntryInterface]',
  entry: 'EntryInterface',
  entryCount: 'Int!',
  assets: '[AssetInterface]',
  asset: 'AssetInterface',
  assetCount: 'Int!',
  globalSets: '[GlobalSetInterface]',
  globalSet: 'GlobalSetInterface',
  users: '[UserInterface]',
  user: 'UserInterface',
  userCount: 'Int!',
  tags: '[TagInterface]',
  tag: 'TagInterface',
  tagCount: 'Int!',
  categories: '[CategoryInterface]',
  category: 'CategoryInterface',
  categoryCount: 'Int!',
  addresses: '[AddressInterface]',
  address: 'AddressInterface',
  addressCount: 'Int!',
}

// Craft's own scalar for Number fields (craftcms/cms src/gql/types/Number.php):
// no table row uses it, the site's content model does.
const HAND_SCALARS = ['Number']

/** The query whose arguments an element type's criteria input takes (craftcms/cms src/gql/types/input/criteria/*.php). */
const CRITERIA_QUERY = { Asset: 'assets', Entry: 'entries', User: 'users', Category: 'categories', Tag: 'tags' }

// Craft 5.4+ relation criteria add these to the element query's arguments
// (craftcms/cms src/gql/arguments/RelationCriteria.php).
const RELATION_CRITERIA_ARGUMENTS = [
  { name: 'relatedViaField', type: '[String]' },
  { name: 'relatedViaSite', type: '[String]' },
]

// craftcms/cms src/gql/base/ElementArguments.php
const SEARCH_TERM_OPTIONS = ['subLeft', 'subRight', 'exclude', 'exact'].map((name) => ({ name, type: 'Boolean' }))

/**
 * Arguments of interface fields: the tables list the fields without them.
 * Craft says in the fields' descriptions that `AssetInterface.url` "accepts
 * the same fields as the `transform` directive" and that the entry structure
 * fields "accept the same arguments as the `entries` query"; the rest is read
 * from craftcms/cms src/gql/interfaces/Element.php (`_count`),
 * src/gql/interfaces/elements/Asset.php (`width`, `height` take the transform
 * arguments too; `srcset(sizes: [String!]!)`; `img` takes none; `prev`/`next`
 * the `assets` arguments; `uploader` the `users` arguments) and
 * src/gql/interfaces/elements/Entry.php (`parent`, `localized`, `prev`,
 * `next`, `drafts`, `revisions` take the `entries` arguments too).
 * Values: a directive (`@transform`), a query (`entries`) or a literal list.
 */
const FIELD_ARGUMENTS = {
  '*._count': [{ name: 'field', type: 'String!' }],
  'AssetInterface.url': '@transform',
  'AssetInterface.width': '@transform',
  'AssetInterface.height': '@transform',
  'AssetInterface.srcset': [{ name: 'sizes', type: '[String!]!' }],
  'AssetInterface.prev': 'assets',
  'AssetInterface.next': 'assets',
  'AssetInterface.uploader': 'users',
  ...Object.fromEntries(
    ['children', 'descendants', 'ancestors', 'parent', 'localized', 'prev', 'next', 'drafts', 'revisions'].map((field) => [`EntryInterface.${field}`, 'entries']),
  ),
}

/** The text between `<!-- BEGIN {marker} -->` and `<!-- END {marker} -->`. */
function markedSection(markdown, marker, file) {
  const begin = markdown.indexOf(`<!-- BEGIN ${marker} -->`)
  const end = markdown.indexOf(`<!-- END ${marker} -->`)
  if (begin < 0 || end < begin) throw new Error(`${file}: no ${marker} section`)
  return markdown.slice(begin, end)
}

/** `### The \`name\` kind` headings with the `| \`name\`| \`Type\` | …` rows under each, in page order. */
function tables(section, kind) {
  const result = []
  let current
  for (const line of section.split('\n')) {
    const heading = line.match(new RegExp(`^### The \`(\\w+)\` ${kind}\\s*$`))
    if (heading) {
      current = { name: heading[1], rows: [] }
      result.push(current)
      continue
    }
    const row = line.match(/^\|\s*`(\w+)`\s*\|\s*`([^`]+)`\s*\|/)
    if (row && current) current.rows.push({ name: row[1], type: row[2] })
  }
  return result
}

export function readReference(markdown, file) {
  return {
    queries: tables(markedSection(markdown, 'QUERIES', file), 'query'),
    directives: tables(markedSection(markdown, 'DIRECTIVES', file), 'directive'),
    interfaces: tables(markedSection(markdown, 'INTERFACES', file), 'interface'),
  }
}

const namedType = (type) => type.replace(/[[\]!]/g, '')

const MAX_LINE = 100

/** `(a: A, b: B)`, or one argument a line when that would be longer than MAX_LINE. */
function argumentList(args, indent, rest) {
  if (args.length === 0) return ''
  const inline = `(${args.map(({ name, type }) => `${name}: ${type}`).join(', ')})`
  if (indent.length + rest.length + inline.length <= MAX_LINE) return inline
  return `(\n${args.map(({ name, type }) => `${indent}  ${name}: ${type}`).join('\n')}\n${indent})`
}

const field = (name, args, type) => `  ${name}${argumentList(args, '  ', `${name}: ${type}`)}: ${type}`
const block = (keyword, name, lines) => `${keyword} ${name} {\n${lines.join('\n')}\n}`

function fieldArguments(interfaceName, fieldName, queries, directives) {
  const spec = FIELD_ARGUMENTS[`${interfaceName}.${fieldName}`] ?? FIELD_ARGUMENTS[`*.${fieldName}`]
  if (spec === undefined) return []
  if (Array.isArray(spec)) return spec
  const table = spec.startsWith('@') ? directives.get(spec.slice(1)) : queries.get(spec)
  if (!table) throw new Error(`${interfaceName}.${fieldName}: the reference has no ${spec}`)
  return table.rows
}

/** Input objects the arguments name: Craft's criteria inputs and SearchTermOptions. */
function inputFields(typeName, queries) {
  if (typeName === 'SearchTermOptions') return SEARCH_TERM_OPTIONS
  const criteria = typeName.match(/^(\w+?)(Relation)?CriteriaInput$/)
  const query = criteria && queries.get(CRITERIA_QUERY[criteria[1]])
  if (!query) throw new Error(`no definition for the input type ${typeName}`)
  return criteria[2] ? [...query.rows, ...RELATION_CRITERIA_ARGUMENTS] : query.rows
}

export function referenceSdl(reference) {
  const queries = new Map(reference.queries.map((table) => [table.name, table]))
  const directives = new Map(reference.directives.map((table) => [table.name, table]))
  const interfaceNames = new Set(reference.interfaces.map(({ name }) => name))
  const rootQueries = reference.queries.filter(({ name }) => name in GENERIC_QUERIES)

  const interfaces = reference.interfaces.map(({ name, rows }) => ({
    name,
    fields: rows.map((row) => ({ ...row, args: fieldArguments(name, row.name, queries, directives) })),
  }))
  const argumentTypes = [
    ...rootQueries.flatMap(({ rows }) => rows),
    ...reference.directives.flatMap(({ rows }) => rows),
    ...interfaces.flatMap(({ fields }) => fields.flatMap(({ args }) => args)),
  ].map(({ type }) => namedType(type))

  // Input types name further input types (EntryCriteriaInput has relatedToAssets: [AssetCriteriaInput] …).
  const inputs = new Map()
  const pending = argumentTypes.filter((type) => !BUILT_IN_SCALARS.has(type))
  while (pending.length > 0) {
    const type = pending.shift()
    if (inputs.has(type) || !/Input$|^SearchTermOptions$/.test(type)) continue
    const fields = inputFields(type, queries)
    inputs.set(type, fields)
    pending.push(...fields.map((field) => namedType(field.type)))
  }

  const fieldTypes = interfaces.flatMap(({ fields }) => fields.map(({ type }) => namedType(type)))
  const scalars = new Set(HAND_SCALARS)
  for (const type of [...argumentTypes, ...fieldTypes, ...[...inputs.values()].flat().map(({ type }) => namedType(type))]) {
    if (!BUILT_IN_SCALARS.has(type) && !interfaceNames.has(type) && !inputs.has(type)) scalars.add(type)
  }

  const sorted = (values) => [...values].sort()
  const sdl = [
    ...sorted(scalars).map((name) => `scalar ${name}`),
    ...reference.directives.map(({ name, rows }) => `directive @${name}${argumentList(rows, '', `directive @${name} on FIELD`)} on FIELD`),
    ...sorted(inputs.keys()).map((name) => block('input', name, inputs.get(name).map((f) => field(f.name, [], f.type)))),
    ...interfaces.map(({ name, fields }) => block('interface', name, fields.map((f) => field(f.name, f.args, f.type)))),
    block('type', 'Query', rootQueries.map(({ name, rows }) => field(name, rows, GENERIC_QUERIES[name]))),
  ].join('\n\n')
  parse(sdl)
  return sdl
}

function header(version) {
  return [
    `# Craft CMS ${version} reference schema. Generated by scripts/craft-reference-schema.mjs: do not edit.`,
    `# Source: ${SOURCES[version]}, the tables Craft generates from`,
    '# its own schema: "Query Reference" (generic queries only), directives, "Predefined interfaces".',
    '# Return types, field arguments and input types added by hand: see README.md beside this file.',
    '',
    '',
  ].join('\n')
}

function parseArguments(argv) {
  const args = [...argv]
  const outIndex = args.indexOf('--out')
  let out = DEFAULT_OUT
  if (outIndex >= 0) {
    const dir = args[outIndex + 1]
    if (!dir) throw new Error('--out needs a directory')
    out = resolve(dir)
    args.splice(outIndex, 2)
  }
  if (args.length !== 2) throw new Error('usage: node scripts/craft-reference-schema.mjs <craft4.md> <craft5.md> [--out DIR]')
  return { inputs: { 4: args[0], 5: args[1] }, out }
}

function main() {
  const { inputs, out } = parseArguments(process.argv.slice(2))
  mkdirSync(out, { recursive: true })
  for (const version of [4, 5]) {
    const file = inputs[version]
    const reference = readReference(readFileSync(file, 'utf8'), file)
    const skipped = reference.queries.filter(({ name }) => !(name in GENERIC_QUERIES)).map(({ name }) => name)
    const sdl = referenceSdl(reference)
    assertValidSchema(buildSchema(sdl))
    const target = join(out, `craft${version}-reference.graphql`)
    writeFileSync(target, `${header(version)}${sdl}\n`)
    console.log(`${relative(process.cwd(), target)}: ${reference.interfaces.length} interfaces; left out the site-specific queries ${skipped.join(', ') || '(none)'}`)
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
