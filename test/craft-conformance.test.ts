import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { GraphQLObjectType, type GraphQLSchema, parse, TypeInfo, validate, visit, visitWithTypeInfo } from 'graphql'
import t from 'tap'
import { DEFAULT_SITE_HANDLE, SITE_SETTINGS_HANDLE } from '../shared/constants.ts'
import { type ContentModel, createContentModel, RESERVED_FIELD_HANDLES } from '../shared/content-model.ts'
import { CRAFT_VERSIONS, type CraftVersion, entryTypeName, globalSetTypeName } from '../shared/craft-naming.ts'
import { createOperations } from '../shared/operations.ts'
import { referenceInterfaceFields, referenceSchema } from './helpers/craft-reference.ts'

/**
 * The documents the gateway sends, checked against schemas built from Craft's
 * own reference tables (test/fixtures/craft) rather than against the embedded
 * CMS, which is ours and could agree with a mistake.
 */

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))
const SITES = [DEFAULT_SITE_HANDLE, 'anderMerk']
const CHECKED_INTERFACES = new Set(['EntryInterface', 'AssetInterface', 'UserInterface', 'GlobalSetInterface'])
const REFERENCE_PAGES = resolve(ROOT, '../shared/craft-reference')

const errorsOf = (schema: GraphQLSchema, document: string): string[] => validate(schema, parse(document)).map((error) => error.message)
const otherMajor = (version: CraftVersion): CraftVersion => (version === 5 ? 4 : 5)

t.test('every document validates against Craft’s reference schema of its major', async (t) => {
  for (const version of CRAFT_VERSIONS) {
    for (const site of SITES) {
      const schema = referenceSchema(version, site)
      const operations = Object.entries(createOperations(site, version))
      t.ok(operations.length > 10, `Craft ${version}, ${site}: the documents are there`)
      for (const [name, document] of operations) t.same(errorsOf(schema, document), [], `Craft ${version}, ${site}: ${name}`)
    }
  }
})

t.test('a document made for one major does not validate against the other', async (t) => {
  for (const version of CRAFT_VERSIONS) {
    for (const site of SITES) {
      const other = referenceSchema(otherMajor(version), site)
      const withEntryTypes = Object.entries(createOperations(site, version)).filter(([, document]) => /\.\.\. on \w+_Entry\b/.test(document))
      t.ok(withEntryTypes.some(([name]) => name === 'ArticleList'), `Craft ${version}, ${site}: documents with entry type fragments found`)
      for (const [name, document] of withEntryTypes) {
        const errors = errorsOf(other, document)
        t.ok(
          errors.some((message) => /^Unknown type "\w+_Entry"/.test(message)),
          `Craft ${version} ${name} (${site}) is refused by Craft ${otherMajor(version)}: ${errors[0] ?? 'no error'}`,
        )
      }
    }
  }
})

/** `Interface.field` for every field a document selects on one of CHECKED_INTERFACES. */
function interfaceSelections(schema: GraphQLSchema, document: string): Set<string> {
  const typeInfo = new TypeInfo(schema)
  const selected = new Set<string>()
  visit(
    parse(document),
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType()
        if (parent && CHECKED_INTERFACES.has(parent.name)) selected.add(`${parent.name}.${node.name.value}`)
      },
    }),
  )
  return selected
}

t.test('every interface field the documents select is in Craft’s interface tables of both majors', async (t) => {
  const documented = new Map(CRAFT_VERSIONS.map((version) => [version, referenceInterfaceFields(version)]))
  const selected = new Set<string>()
  for (const version of CRAFT_VERSIONS) {
    for (const site of SITES) {
      const schema = referenceSchema(version, site)
      for (const document of Object.values(createOperations(site, version))) for (const field of interfaceSelections(schema, document)) selected.add(field)
    }
  }
  // isDraft, revisionId and status: what a preview shows (renderer/server/preview-bar.tsx), documented in both majors.
  for (const expected of ['EntryInterface.typeHandle', 'EntryInterface.author', 'UserInterface.fullName', 'AssetInterface.srcset', 'AssetInterface.alt', 'EntryInterface.isDraft', 'EntryInterface.revisionId', 'EntryInterface.status']) {
    t.ok(selected.has(expected), `the walk sees ${expected}`)
  }
  for (const field of [...selected].sort()) {
    const [interfaceName = '', fieldName = ''] = field.split('.')
    for (const version of CRAFT_VERSIONS) {
      t.ok(documented.get(version)?.get(interfaceName)?.has(fieldName), `${field} is documented for Craft ${version}`)
    }
  }
})

function withField(model: ContentModel, handle: string): ContentModel {
  const [first, ...rest] = model.entryTypes
  if (!first) throw new Error('the content model has no entry types')
  return { ...model, entryTypes: [{ ...first, fields: [...first.fields, { handle, field: { kind: 'plainText' } }] }, ...rest] }
}

t.test('no custom field is named like a native entry field, and the reference schema refuses one that is', async (t) => {
  for (const site of SITES) {
    const model = createContentModel(site)
    const handles = [...model.entryTypes.flatMap(({ fields }) => fields), ...model.globalSet.fields].map(({ handle }) => handle)
    t.same(
      handles.filter((handle) => RESERVED_FIELD_HANDLES.has(handle)),
      [],
      `${site}: no reserved handle`,
    )
    for (const version of CRAFT_VERSIONS) {
      for (const handle of [...RESERVED_FIELD_HANDLES, 'postDate']) {
        t.throws(() => referenceSchema(version, site, withField(model, handle)), new RegExp(`"${handle}" is a native entry field`), `Craft ${version}: ${handle}`)
      }
      t.ok(referenceSchema(version, site, withField(model, 'summary')).getType('Query'), `Craft ${version}: an ordinary handle is accepted`)
    }
  }
})

t.test(
  'the fixtures are what the generator makes from Craft’s reference pages',
  { skip: existsSync(REFERENCE_PAGES) ? false : `no reference pages at ${REFERENCE_PAGES}: the fixtures are checked where they are present` },
  async (t) => {
    const out = mkdtempSync(join(tmpdir(), 'craft-reference-'))
    t.teardown(() => rmSync(out, { recursive: true, force: true }))
    execFileSync(
      process.execPath,
      [join(ROOT, 'scripts/craft-reference-schema.mjs'), join(REFERENCE_PAGES, 'craft4-graphql.md'), join(REFERENCE_PAGES, 'craft5-graphql.md'), '--out', out],
      { stdio: 'pipe' },
    )
    for (const version of CRAFT_VERSIONS) {
      const file = `craft${version}-reference.graphql`
      t.equal(readFileSync(join(out, file), 'utf8'), readFileSync(join(ROOT, 'test/fixtures/craft', file), 'utf8'), `${file} is up to date`)
    }
  },
)

/**
 * The fields a visitor acts on (issue 42), as Craft types them in both
 * majors: rich text and plain text are String, a Number field Number, an
 * Entries field a list of EntryInterface; the insurers' own entry type is
 * named per major. The documents that read them validate above; this pins
 * the types, so a field made prose again or given another kind fails here.
 */
t.test('the insurance, insurer, job and register fields are in both majors’ schemas with Craft’s field types, and the documents read them', async (t) => {
  const expected: [section: string, type: string, fields: Record<string, string>][] = [
    ['insurances', 'insurance', { coverage: 'String', exclusions: 'String', deductible: 'String', adviceEmail: 'String', insurers: '[EntryInterface]!' }],
    ['insurers', 'insurer', { website: 'String' }],
    ['jobs', 'job', { salaryHours: 'Number' }],
  ]
  for (const version of CRAFT_VERSIONS) {
    for (const site of SITES) {
      const schema = referenceSchema(version, site)
      const operations = createOperations(site, version)
      for (const [section, type, fields] of expected) {
        const name = entryTypeName(version, section, type)
        const object = schema.getType(name)
        t.ok(object instanceof GraphQLObjectType, `Craft ${version}, ${site}: ${name}`)
        if (!(object instanceof GraphQLObjectType)) continue
        for (const [field, typeName] of Object.entries(fields)) t.equal(String(object.getFields()[field]?.type), typeName, `Craft ${version}: ${name}.${field} is ${typeName}`)
      }
      const settings = schema.getType(globalSetTypeName(SITE_SETTINGS_HANDLE))
      t.ok(settings instanceof GraphQLObjectType, `Craft ${version}, ${site}: the global set's type`)
      if (settings instanceof GraphQLObjectType) {
        for (const field of ['afmRegisterUrl', 'kifidRegisterUrl', 'kvkRegisterUrl']) t.equal(String(settings.getFields()[field]?.type), 'String', `Craft ${version}: the global set's ${field} is plain text`)
      }
      t.match(operations.SiteSettings, /afmRegisterUrl kifidRegisterUrl kvkRegisterUrl/, `Craft ${version}: SiteSettings reads the register addresses`)
      t.match(operations.InsuranceBySlug, /coverage exclusions deductible adviceEmail/, `Craft ${version}: InsuranceBySlug reads the insurance's fields`)
      t.match(operations.InsuranceBySlug, new RegExp(`insurers \\{ \\.\\.\\.EntryBase \\.\\.\\. on ${entryTypeName(version, 'insurers', 'insurer')} \\{ website \\} \\}`), `Craft ${version}: and its insurers`)
      t.match(operations.InsurerList, `... on ${entryTypeName(version, 'insurers', 'insurer')} { website }`, `Craft ${version}: InsurerList`)
      for (const name of ['JobList', 'JobBySlug'] as const) t.match(operations[name], /salaryMin salaryMax salaryHours/, `Craft ${version}: ${name} reads salaryHours`)
    }
  }
  const insurers = createContentModel(DEFAULT_SITE_HANDLE).entryTypes.find((entryType) => entryType.type === 'insurance')?.fields.find((field) => field.handle === 'insurers')
  t.same(insurers?.field, { kind: 'entries', sources: ['insurers'] }, 'an insurance relates to entries of the insurers section only')
})
