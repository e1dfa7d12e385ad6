// docs/craft.md's table of what a real Craft must have for this site, made from
// the route table, the documents and the content model, so it cannot drift
// from the code. Run with tsx (`npm run craft-model`):
//   (no flag)      print the table
//   --write FILE   put it into FILE between the markers
//   --check FILE   exit 1 when FILE's table is not the one the code makes
// A field of a type the table does not know fails the run, naming the field.
import { pathToFileURL } from 'node:url'
import { DEFAULT_SITE_HANDLE } from '../shared/constants.ts'
import { createContentModel } from '../shared/content-model.ts'
import { entryTypeName, globalSetTypeName, assetTypeName } from '../shared/craft-naming.ts'
import { createOperations } from '../shared/operations.ts'
import { createRouteTable } from '../shared/routes.ts'
import { runGeneratedSection } from './generated-section.mjs'

const BEGIN = '<!-- BEGIN CRAFT MODEL (npm run craft-model -- --write docs/craft.md) -->'
const END = '<!-- END CRAFT MODEL -->'
const KIND = {
  plainText: 'Plain Text',
  richText: 'CKEditor (HTML)',
  number: 'Number',
  date: 'Date',
  dropdown: 'Dropdown',
  entries: 'Entries',
  assets: 'Assets',
  table: 'Table',
}

/** A field's cell; a type the table has no name for is an error, never the text `undefined`. */
const fieldText = (owner) => ({ handle, field }) => {
  const kind = KIND[field.kind]
  if (kind === undefined) {
    throw new Error(`craft-model: field \`${handle}\` of ${owner} has type \`${field.kind}\`, which the table does not know: add it to KIND in scripts/craft-model.mjs`)
  }
  const detail =
    field.kind === 'table'
      ? ` (${field.columns.join(', ')})`
      : field.kind === 'dropdown'
        ? ` (${field.options.join(', ')})`
        : field.kind === 'entries' && field.sources
          ? ` (source: ${field.sources.map((source) => `\`${source}\``).join(', ')})`
          : ''
  return `\`${handle}\` ${kind}${detail}`
}

/** `tables` replaces what the code makes (tests: a model with one more field). */
export function craftModelTable(product = DEFAULT_SITE_HANDLE, tables = {}) {
  const model = tables.model ?? createContentModel(product)
  const operations = tables.operations ?? createOperations(product)
  const routes = tables.routes ?? createRouteTable(product)
  // Which pages read a section: the sections named in their documents, and the route's own single.
  const pagesBySection = new Map()
  for (const route of routes.routes) {
    const sections = new Set(route.handle ? [route.handle] : [])
    for (const loader of route.loaders) {
      const document = operations[loader.operation]
      if (document === undefined) throw new Error(`craft-model: route \`${route.id}\` loads \`${loader.operation}\`, which shared/operations.ts has no document for`)
      for (const match of document.matchAll(/section:\s*"([^"]+)"/g)) sections.add(match[1])
    }
    for (const section of sections) {
      const pages = pagesBySection.get(section) ?? new Set()
      for (const path of route.paths) pages.add(path)
      pagesBySection.set(section, pages)
    }
  }
  const rows = model.entryTypes.map((entryType) => {
    const pages = [...(pagesBySection.get(entryType.section) ?? [])]
    const used = entryType.section === 'redirects' ? 'redirects of every page' : entryType.section === 'notFound' ? 'the 404 page' : pages.map((path) => `\`${path}\``).join(', ')
    return `| \`${entryType.section}\` | \`${entryType.type}\` | \`${entryTypeName(5, entryType.section, entryType.type)}\` | \`${entryTypeName(4, entryType.section, entryType.type)}\` | ${entryType.fields.map(fieldText(`\`${entryType.section}\` / \`${entryType.type}\``)).join('; ')} | ${used} |`
  })
  return [
    BEGIN,
    '| section | entry type | type in Craft 5 | type in Craft 4 | custom fields | read by |',
    '|---|---|---|---|---|---|',
    ...rows,
    `| global set \`${model.globalSet.handle}\` | | \`${globalSetTypeName(model.globalSet.handle)}\` | same | ${model.globalSet.fields.map(fieldText(`global set \`${model.globalSet.handle}\``)).join('; ')} | every page (header, footer) |`,
    `| asset volume \`${model.assetVolume}\` | | \`${assetTypeName(model.assetVolume)}\` | same | \`alt\`; transforms by \`srcset(sizes: [...])\`, WebP by \`url(width: …, format: "webp")\` per width | articles (\`image\`) |`,
    `| users | | \`User\` | same | none: an article's author is Craft's own \`author { fullName }\` | articles |`,
    END,
  ].join('\n')
}

/** The command line; `tables` as for craftModelTable. A table it cannot make is a message and exit code 1. */
export function runCraftModel({ argv = process.argv.slice(2), tables = {} } = {}) {
  const make = () => {
    try {
      return craftModelTable(DEFAULT_SITE_HANDLE, tables)
    } catch (error) {
      console.error(error.message)
      process.exit(1)
    }
  }
  runGeneratedSection({ begin: BEGIN, end: END, make, what: 'the table of the Craft model', command: 'npm run craft-model', argv })
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) runCraftModel()
