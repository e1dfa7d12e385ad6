import t from 'tap'
import { KnownEntries } from '../../gateway/craft/known-entries.ts'
import { neighbourTags, parseSavedEntry, savePurgePlan } from '../../gateway/cache/save-purge.ts'

/**
 * What one editor's save purges (gateway/cache/save-purge.ts): the entry's
 * tag always; its section's lists and the entries next to its new place only
 * when its place in the lists may have changed.
 */
const known = new KnownEntries()
known.remember({ id: '12', sectionHandle: 'topical', postDate: '2026-11-30T10:00:00+01:00', slug: 'stormschade', status: 'live', title: 'Stormschade' })
const saved = (change: Record<string, unknown> = {}) =>
  parseSavedEntry({ event: 'save', id: 12, section: 'topical', isNew: false, postDate: '2026-11-30T09:00:00Z', slug: 'stormschade', status: 'live', ...change })

t.test('a text change purges the entry only', async (t) => {
  t.same(savePurgePlan(saved(), known.get('12')), { tags: ['entry:12'] }, 'the same instant in another offset is the same date')
  t.same(savePurgePlan(saved({ postDate: undefined, slug: undefined, status: undefined }), known.get('12')), { tags: ['entry:12', 'topical'], listsBecause: 'no post date given' }, 'without a post date its place is not known: the lists too')
})

t.test('a move in the lists purges them, and names the date whose neighbours change', async (t) => {
  const at = '2026-12-01T08:00:00Z'
  t.same(savePurgePlan(saved({ postDate: at }), known.get('12')), { tags: ['entry:12', 'topical'], neighboursAt: at, listsBecause: 're-dated' })
  t.same(savePurgePlan(saved({ isNew: true, id: 99 }), undefined), { tags: ['entry:99', 'topical'], neighboursAt: '2026-11-30T09:00:00Z', listsBecause: 'new' })
  t.same(savePurgePlan(saved({ slug: 'storm' }), known.get('12')).listsBecause, 'new address')
  t.same(savePurgePlan(saved({ status: 'disabled' }), known.get('12')), { tags: ['entry:12', 'topical'], listsBecause: 'status live to disabled' }, 'no longer live: out of the lists, no new neighbours')
  t.same(savePurgePlan(saved({ event: 'delete' }), known.get('12')), { tags: ['entry:12', 'topical'], listsBecause: 'deleted' })
  t.same(savePurgePlan(saved({ id: 13 }), known.get('13')).listsBecause, 'not seen in any cached answer', 'an entry no answer showed: its lists to be safe')
  t.same(savePurgePlan(saved({ section: 'jobs' }), known.get('12')).tags, ['entry:12', 'jobs', 'topical'], 'moved to another section: both sections’ lists')
})

t.test('what the answers last said is remembered, and what an answer leaves out stays known', async (t) => {
  const entries = new KnownEntries(2)
  entries.remember({ id: 5, sectionHandle: 'jobs', postDate: '2026-01-01T00:00:00Z', slug: 'a', status: 'live' })
  entries.remember({ id: 5, sectionHandle: 'jobs', slug: 'a' })
  t.same(entries.get('5'), { section: 'jobs', postDate: '2026-01-01T00:00:00Z', slug: 'a', status: 'live' })
  entries.remember({ id: 'x', title: 'no section' })
  t.equal(entries.size, 1, 'only entries (with an id and a section) are kept')
  entries.remember({ id: 6, sectionHandle: 'jobs' })
  entries.remember({ id: 7, sectionHandle: 'jobs' })
  t.equal(entries.size, 2, 'bounded')
  t.equal(entries.get('5'), undefined, 'the least recently seen forgotten')
})

t.test("a wrong save event is refused whole, with the field's name", async (t) => {
  const bad: [unknown, RegExp][] = [
    [null, /entry must be a JSON object/],
    [['x'], /entry must be a JSON object/],
    [{ event: 'publish', id: 1, section: 'topical' }, /entry.event/],
    [{ id: '12; DROP', section: 'topical' }, /entry.id/],
    [{ id: 1.5, section: 'topical' }, /entry.id/],
    [{ id: 1, section: 'entry:1' }, /entry.section/],
    [{ id: 1, section: 'topical', isNew: 'ja' }, /entry.isNew/],
    [{ id: 1, section: 'topical', postDate: 'gisteren' }, /entry.postDate/],
    [{ id: 1, section: 'topical', slug: 'x'.repeat(201) }, /entry.slug/],
    [{ id: 1, section: 'topical', status: 3 }, /entry.status/],
  ]
  for (const [value, message] of bad) t.throws(() => parseSavedEntry(value), { statusCode: 400, message }, JSON.stringify(value)?.slice(0, 60))
  t.same(parseSavedEntry({ id: '7', section: 'jobs' }), { event: 'save', id: '7', section: 'jobs', isNew: false, postDate: undefined, slug: undefined, status: undefined }, 'a save unless told, new only when told')
})

t.test("the neighbours of a new place: the nearest newer and older, never the saved entry itself", async (t) => {
  t.same(neighbourTags({ newer: [{ id: '12' }, { id: '14' }], older: [{ id: '11' }] }, '12'), ['entry:14', 'entry:11'])
  t.same(neighbourTags({ newer: [], older: [{ id: 3 }, { id: 2 }] }, '12'), ['entry:3'], 'the newest has no newer neighbour')
  t.same(neighbourTags({ newer: [{ id: 'x' }], older: null }, '12'), [], 'what is no entry id is no tag')
  t.same(neighbourTags(undefined, '12'), [])
})

t.test('the edges of a save event', async (t) => {
  const base = { id: 1, section: 'topical' }
  t.throws(() => parseSavedEntry('x'), { message: /entry must be a JSON object/ }, 'a string is no event')
  t.throws(() => parseSavedEntry({ ...base, id: 'abc123' }), { message: /entry.id/ }, 'an id is digits only, from its start')
  t.throws(() => parseSavedEntry({ ...base, id: '123abc' }), { message: /entry.id/ }, 'to its end')
  t.throws(() => parseSavedEntry({ ...base, id: 2 ** 60 }), { message: /entry.id/ }, 'a number past the safe integers is no id')
  t.equal(parseSavedEntry({ ...base, id: 7 }).id, '7', 'a number id is read as its digits')
  t.throws(() => parseSavedEntry({ ...base, section: 12 }), { message: /entry.section/ })
  t.throws(() => parseSavedEntry({ ...base, section: 'two words' }), { message: /entry.section/ })
  t.throws(() => parseSavedEntry({ ...base, postDate: 'gisteren' }), { message: /^entry.postDate must be a date/ })
  t.throws(() => parseSavedEntry({ ...base, postDate: 5 }), { message: /^entry.postDate must be a string/ }, 'the field is named in the message')
  t.equal(parseSavedEntry({ ...base, slug: 'x'.repeat(200) }).slug?.length, 200, '200 characters are allowed')
  t.same(parseSavedEntry({ ...base, postDate: null, slug: null, status: null }), { event: 'save', id: '1', section: 'topical', isNew: false, postDate: null, slug: null, status: null }, 'null says "none", and is kept')
})

t.test('the edges of a move', async (t) => {
  const entries = new KnownEntries()
  // A sitemap answer has no post date or status: what it leaves out is not known, and not taken for a change.
  entries.remember({ id: 20, sectionHandle: 'topical', slug: 'a' })
  const plan = (change: Record<string, unknown>, id = '20') => savePurgePlan(parseSavedEntry({ id, section: 'topical', postDate: '2026-01-01T00:00:00Z', ...change }), entries.get(id))
  t.same(plan({ slug: 'a', status: 'live' }), { tags: ['entry:20'] }, 'no known post date or status: not moved')
  t.same(plan({}), { tags: ['entry:20'] }, 'no slug or status sent: not moved')
  entries.remember({ id: 21, sectionHandle: 'topical', postDate: null, status: null })
  t.same(plan({ postDate: null }, '21'), { tags: ['entry:21'] }, 'no post date, then and now: the same')
  t.same(plan({}, '21').listsBecause, 're-dated', 'a post date where there was none')
  t.same(plan({ postDate: null, status: 'live' }, '21').listsBecause, 'status none to live')
  entries.remember({ id: 22, sectionHandle: 'topical', postDate: '2026-01-01T00:00:00Z', status: 'live' })
  t.same(plan({ status: null }, '22').listsBecause, 'status live to none')
  t.same(plan({ section: 'jobs' }, '22').listsBecause, 'another section')
  t.same(savePurgePlan(parseSavedEntry({ id: 30, section: 'topical', isNew: true, postDate: null }), undefined), { tags: ['entry:30', 'topical'], listsBecause: 'new' }, 'no post date: no place to ask the neighbours of')
  t.same(savePurgePlan(parseSavedEntry({ id: 30, section: 'topical', isNew: true, postDate: '2026-01-01T00:00:00Z', status: null }), undefined).neighboursAt, '2026-01-01T00:00:00Z', 'no status said: taken as live')
  t.equal(savePurgePlan(parseSavedEntry({ id: 30, section: 'topical', isNew: true, postDate: '2027-01-01T00:00:00Z', status: 'pending' }), undefined).neighboursAt, undefined, 'a pending entry joins no list yet')
})

t.test('the edges of remembering and of neighbours', async (t) => {
  const entries = new KnownEntries()
  entries.remember({ id: true, sectionHandle: 'topical' })
  entries.remember({ id: 8, sectionHandle: 'topical', postDate: '2026-01-01T00:00:00Z', slug: 'x' })
  entries.remember({ id: 8, sectionHandle: 'topical', postDate: 5, slug: null })
  t.equal(entries.size, 1, 'an id is a string or a number')
  t.same(entries.get('8'), { section: 'topical', postDate: '2026-01-01T00:00:00Z', slug: null, status: undefined }, 'a value that is no string or null leaves what was known; null is known as none')
  t.same(neighbourTags({ newer: [null, { id: { nested: 1 } }, { id: 15 }], older: [] }, '12'), ['entry:15'], 'what is no id is passed over')
})
