import { graphql, parse, validate } from 'graphql'
import t from 'tap'
import { ContentStore } from '../../gateway/embedded-cms/content-store.ts'
import { createCmsSchema, entryStatus } from '../../gateway/embedded-cms/schema.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { CRAFT_VERSIONS, type CraftVersion } from '../../shared/craft-naming.ts'
import { createOperations } from '../../shared/operations.ts'

t.test('every allowlisted operation is valid against the embedded schema of the same major', async (t) => {
  for (const version of CRAFT_VERSIONS) {
    for (const site of [DEFAULT_SITE_HANDLE, 'anderMerk']) {
      const schema = createCmsSchema(new ContentStore([], site), { version })
      for (const [name, query] of Object.entries(createOperations(site, version))) {
        const errors = validate(schema, parse(query))
        t.same(errors.map((e) => e.message), [], `Craft ${version}, ${site}: ${name}`)
      }
    }
  }
})

t.test('entry types are named as each major names them', async (t) => {
  const names: Record<CraftVersion, string[]> = {
    4: ['jobs_job_Entry', 'topical_article_Entry', 'havenborgHome_havenborgHome_Entry', 'aboutJobsOpenApplication_aboutJobsOpenApplication_Entry'],
    5: ['job_Entry', 'article_Entry', 'havenborgHome_Entry', 'aboutJobsOpenApplication_Entry'],
  }
  for (const version of CRAFT_VERSIONS) {
    const schema = createCmsSchema(new ContentStore([], DEFAULT_SITE_HANDLE), { version })
    for (const name of [...names[version], 'siteSettings_GlobalSet', 'openingHours_TableRow', 'images_Asset', 'User']) t.ok(schema.getType(name), `Craft ${version}: ${name}`)
    const other = version === 5 ? names[4] : names[5]
    for (const name of other) t.notOk(schema.getType(name), `Craft ${version} has no ${name}`)
  }
})

t.test('native author, empty tables null, drafts marked', async (t) => {
  const store = new ContentStore(
    [
      {
        users: [{ id: '7', username: 'redactie', firstName: 'Eva', lastName: 'Brinkman' }],
        entries: [{ id: '1', section: 'topical', type: 'article', title: 'A', slug: 'a', uri: 'topical/a', postDate: '2025-01-01T09:00:00+01:00', dateUpdated: null, enabled: true, authorIds: ['7'], fields: {} }],
        globalSets: [{ handle: 'siteSettings', name: 'Site', fields: { openingHours: [], footerNavigation: [{ label: 'x', url: '/x' }] } }],
        drafts: [{ token: 'tok', entry: { id: '1', section: 'topical', type: 'article', title: 'A (concept)', slug: 'a', uri: 'topical/a', postDate: null, dateUpdated: null, enabled: true, fields: {} } }],
      },
    ],
    DEFAULT_SITE_HANDLE,
  )
  const schema = createCmsSchema(store, { version: 5 })
  const run = async (source: string, token?: string) => (await graphql({ schema, source, contextValue: { token } })) as { data: Record<string, unknown> }
  const entry = await run('{ entry(section: "topical") { title status isDraft author { fullName name } authors { fullName } } }')
  t.same(entry.data.entry, { title: 'A', status: 'live', isDraft: false, author: { fullName: 'Eva Brinkman', name: 'Eva Brinkman' }, authors: [{ fullName: 'Eva Brinkman' }] })
  const draft = await run('{ entry(section: "topical") { title status isDraft author { fullName } } }', 'tok')
  t.same(draft.data.entry, { title: 'A (concept)', status: 'enabled', isDraft: true, author: null }, "a new entry's draft without a post date: Craft's status `enabled`, not `live`")
  const set = await run('{ globalSet(handle: "siteSettings") { ... on siteSettings_GlobalSet { openingHours { day } footerNavigation { label } } } }')
  t.same(set.data.globalSet, { openingHours: null, footerNavigation: [{ label: 'x' }] }, 'a Table field without rows is null, as in Craft')
})

t.test("an entry's status is Craft's: live only once enabled and posted", async (t) => {
  const now = Date.parse('2026-11-26T12:00:00Z')
  t.equal(entryStatus({ enabled: true, postDate: '2026-11-20T09:00:00+01:00' }, now), 'live')
  t.equal(entryStatus({ enabled: true, postDate: '2026-12-01T09:00:00+01:00' }, now), 'pending', 'a post date still to come')
  t.equal(entryStatus({ enabled: true, postDate: null }, now), 'enabled', 'no post date (never published)')
  t.equal(entryStatus({ enabled: false, postDate: '2026-11-20T09:00:00+01:00' }, now), 'disabled')
})

t.test('the store: pending entries are left out of lists and counts, as Craft leaves them out', async (t) => {
  const day = 86_400_000
  const entry = (id: string, postDate: string, section = 'topical') => ({
    id, section, type: 'article', title: `Artikel ${id}`, slug: `artikel-${id}`, uri: `${section}/artikel-${id}`, postDate, dateUpdated: null, enabled: true, fields: {},
  })
  const future = new Date(Date.now() + 30 * day).toISOString()
  const past = (days: number) => new Date(Date.now() - days * day).toISOString()
  const store = new ContentStore([{ entries: [entry('1', past(3)), entry('2', future), entry('3', past(1)), entry('4', past(2), 'jobs')], drafts: [{ token: 'tok', entry: entry('2', future) }] }], 'site')
  t.same(store.findEntries({ section: ['topical'] }, undefined).map((e) => e.id), ['3', '1'], 'the pending article is not listed')
  t.equal(store.countEntries({ section: ['topical'] }, undefined), 2, 'nor counted')
  t.same(store.findEntries({ section: ['topical'], slug: ['artikel-2'] }, undefined), [], 'nor found by its slug')
  t.same(store.findEntries({ section: ['topical'] }, 'tok').map((e) => e.id), ['2', '3', '1'], 'a preview of its draft shows it')
  t.equal(store.countEntries({ section: ['topical', 'jobs'] }, undefined), 3, 'counts over sections')
})

t.test('the store: its indexes answer every list query as a filter and sort of all entries would', async (t) => {
  const sections = ['topical', 'jobs', 'services']
  const entries = Array.from({ length: 300 }, (_, i) => ({
    id: String(i + 1),
    section: sections[i % 3] as string,
    type: 'entry',
    title: `Titel ${(i * 7919) % 300}`,
    slug: `slug-${i % 40}`,
    uri: `x/slug-${i}`,
    postDate: new Date(Date.UTC(2025, 0, 1) + ((i * 104729) % 1000) * 3_600_000).toISOString(),
    dateUpdated: null,
    enabled: i % 17 !== 0,
    fields: {},
  }))
  const store = new ContentStore([{ entries }], 'site')
  const naive = (section: string[] | undefined, orderBy: string | undefined, slug?: string) => {
    const found = entries.filter((e) => e.enabled && (!section || section.includes(e.section)) && (!slug || e.slug === slug))
    const [field = 'postDate', direction = 'DESC'] = (orderBy ?? 'postDate DESC').split(' ')
    const key = field as 'postDate' | 'title'
    return found.sort((a, b) => (direction === 'DESC' ? -1 : 1) * a[key].localeCompare(b[key], 'nl')).map((e) => e.id)
  }
  for (const section of [['topical'], ['jobs', 'services'], undefined]) {
    for (const orderBy of ['postDate DESC', 'title ASC', undefined]) {
      const all = naive(section, orderBy)
      t.same(store.findEntries({ section: section ?? null, orderBy: orderBy ?? null }, undefined).map((e) => e.id), all, `${section ?? 'all'} by ${orderBy ?? 'default'}`)
      t.same(store.findEntries({ section: section ?? null, orderBy: orderBy ?? null, limit: 7, offset: 20 }, undefined).map((e) => e.id), all.slice(20, 27), 'a page of it')
      t.equal(store.countEntries({ section: section ?? null }, undefined), all.length, 'its count')
    }
    t.same(store.findEntries({ section: section ?? null, slug: ['slug-5'] }, undefined).map((e) => e.id), naive(section, undefined, 'slug-5'), 'by slug')
  }
  t.same(store.entriesByIds(['5', '999', '2'], undefined).map((e) => e.id), ['5', '2'], 'by ids, in their order')
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
