import { parse, validate } from 'graphql'
import t from 'tap'
import { ContentStore } from '../../gateway/embedded-cms/content-store.ts'
import { createCmsSchema } from '../../gateway/embedded-cms/schema.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'

t.test('every allowlisted operation is valid against the Craft-compatible schema', async (t) => {
  for (const site of [DEFAULT_SITE_HANDLE, 'anderMerk']) {
    const schema = createCmsSchema(new ContentStore([], site))
    for (const [name, query] of Object.entries(createOperations(site))) {
      const errors = validate(schema, parse(query))
      t.same(errors.map((e) => e.message), [], `${site}: ${name}`)
    }
  }
})

t.test('entry types are named as Craft 4 names them', async (t) => {
  const schema = createCmsSchema(new ContentStore([], DEFAULT_SITE_HANDLE))
  for (const name of ['jobs_job_Entry', 'topical_article_Entry', 'havenborgHome_havenborgHome_Entry', 'aboutJobsOpenApplication_aboutJobsOpenApplication_Entry', 'siteSettings_GlobalSet', 'openingHours_TableRow']) {
    t.ok(schema.getType(name), name)
  }
})

t.test('the store: drafts only with their token, ordering, paging, relations', async (t) => {
  const entry = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    section: 'topical',
    type: 'article',
    title: `Artikel ${id}`,
    slug: `artikel-${id}`,
    uri: `topical/artikel-${id}`,
    postDate: `2025-0${id}-01T00:00:00+01:00`,
    dateUpdated: null,
    enabled: true,
    fields: {},
    ...extra,
  })
  const store = new ContentStore(
    [{ entries: [entry('1'), entry('2'), entry('3', { fields: { related: ['1'] } }), entry('4', { enabled: false })], drafts: [{ token: 'tok', entry: entry('4', { title: 'Concept' }) }] }],
    'site',
  )
  t.same(store.findEntries({ section: ['topical'] }, undefined).map((e) => e.id), ['3', '2', '1'], 'newest first, disabled hidden')
  t.same(store.findEntries({ section: ['topical'], limit: 1, offset: 1 }, undefined).map((e) => e.id), ['2'])
  t.same(store.findEntries({ section: ['topical'] }, 'tok').map((e) => e.title)[0], 'Concept', 'the draft with its token')
  t.same(store.findEntries({ relatedTo: ['1'] }, undefined).map((e) => e.id), ['3'])
  t.same(store.findEntries({ section: ['topical'], site: ['other'] }, undefined), [], 'another site has nothing')
  t.ok(store.isPreviewToken('tok'))
  t.notOk(store.isPreviewToken('nope'))
})
