import t from 'tap'
import { ContentStore, type StoredEntry } from '../../gateway/embedded-cms/content-store.ts'

/**
 * Craft's `prev` and `next` in the embedded CMS (ContentStore.adjacent): the entry before or after in the
 * criteria's order, pending entries left out as Craft's live status leaves them; from the section's sorted list
 * for a query by section alone, by a walk of the results otherwise: both give the same.
 */
const hour = 3_600_000
const article = (id: number, postedHoursAgo: number, type = 'article'): StoredEntry => ({
  id: String(id),
  section: 'topical',
  type,
  title: `Artikel ${id}`,
  slug: `artikel-${id}`,
  uri: `actueel/artikel-${id}`,
  postDate: new Date(Date.now() - postedHoursAgo * hour).toISOString(),
  dateUpdated: null,
  enabled: true,
  fields: {},
})
// Newest first: 5 is pending (an hour to come), then 1, 2, 3, 4.
const entries = [article(1, 1), article(2, 2), article(3, 3), article(4, 4), article(5, -1)]
const store = new ContentStore([{ entries }], 'havenborg')
const bySection = { section: ['topical'], orderBy: 'postDate DESC' }
const walked = { ...bySection, type: ['article'] }
const id = (entry: StoredEntry | null) => entry?.id ?? null
const live = (n: number) => store.findEntries({ id: [String(n)] }, undefined)[0] as StoredEntry

t.test('newer (prev) and older (next), the pending entry passed over', async (t) => {
  for (const query of [bySection, walked]) {
    const label = query === walked ? 'walked' : 'by its place'
    t.equal(id(store.adjacent(live(2), query, undefined, -1)), '1', `${label}: prev of 2 is the newer 1`)
    t.equal(id(store.adjacent(live(2), query, undefined, 1)), '3', `${label}: next of 2 is the older 3`)
    t.equal(id(store.adjacent(live(1), query, undefined, -1)), null, `${label}: the newest live one has no prev (5 is pending)`)
    t.equal(id(store.adjacent(live(4), query, undefined, 1)), null, `${label}: the oldest has no next`)
    t.equal(id(store.adjacent(entries[4] as StoredEntry, query, undefined, 1)), null, `${label}: a pending entry is not among them`)
  }
  t.equal(store.adjacent(live(2), { ...bySection, site: ['elders'] }, undefined, 1), null, 'another site has none')
  t.equal(id(store.adjacent(live(2), { section: ['topical'], orderBy: 'postDate ASC' }, undefined, 1)), '1', 'in the order asked for')
})
