import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { ARTICLES_PER_PAGE } from '../shared/constants.ts'
import { writeScaledContent } from '../scripts/scale-content.ts'
import { startSystem } from './helpers/system.ts'

// An editor's save re-renders only the pages that show what changed (issue
// 50): Craft's save event purges the entry's tag (its page, its neighbours'
// "Meer nieuws", the overview page that lists it); a new article also its
// section's lists and the pages of the articles next to its place. Every
// other article page stays fresh. 30 articles, hour-long lifetimes: nothing
// here goes stale but by a purge.
t.setTimeout(600_000)
const dir = mkdtempSync(join(tmpdir(), 'save-purge-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
writeScaledContent(dir, { topical: 30 })
const PURGE_SECRET = 'save-purge-secret'
const hour = String(3_600_000)
const system = await startSystem({ CONTENT_DIR: dir, PURGE_SECRET, PAGE_CACHE_TTL_MS: hour, CACHE_TTL_MS: hour, CLIENT_WORK_BUDGET: '1000000' })
t.teardown(() => system.close())

interface StoredArticle {
  id: string
  section: string
  slug: string
  title: string
  uri: string | null
  postDate: string | null
  dateUpdated: string | null
  enabled: boolean
}

const fileOfArticles = (): string => {
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.json'))) {
    const file = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { entries?: StoredArticle[] }
    if (file.entries?.some((entry) => entry.section === 'topical')) return join(dir, name)
  }
  throw new Error('no articles')
}
const FILE = fileOfArticles()
const readArticles = () => JSON.parse(readFileSync(FILE, 'utf8')) as { entries: StoredArticle[] }
/** The live articles, newest first, as the site lists them. */
const articles = (): StoredArticle[] =>
  readArticles()
    .entries.filter((entry) => entry.section === 'topical' && entry.enabled)
    .sort((a, b) => Date.parse(b.postDate ?? '') - Date.parse(a.postDate ?? ''))
const pathOf = (article: StoredArticle) => `/actueel/${article.slug}`

const get = async (path: string) => {
  const response = await request(`${system.url}${path}`)
  return { cache: String(response.headers['x-cache']), html: await response.body.text() }
}
const purge = async (entry: Record<string, unknown>) => {
  const response = await request(`${system.url}/api/purge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-purge-secret': PURGE_SECRET },
    body: JSON.stringify({ entry }),
  })
  t.equal(response.statusCode, 200)
  return (await response.body.json()) as { pages: number; entry: { tags: string[]; lists: string | null; neighbours: string[] | null } }
}
/** Changes the content files, and waits until the embedded CMS (which watches them) answers with the change. */
const edit = async (change: (entries: StoredArticle[]) => void, check: (titles: string[]) => boolean) => {
  const content = readArticles()
  change(content.entries)
  writeFileSync(FILE, JSON.stringify(content))
  const titles = async () => {
    const response = await request(String(system.gateway.embeddedCmsUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ entries(section: "topical") { title } }' }),
    })
    return ((await response.body.json()) as { data: { entries: { title: string }[] } }).data.entries.map((entry) => entry.title)
  }
  while (!check(await titles())) await new Promise((resolve) => setImmediate(resolve))
}
const storedUntilHit = async (path: string) => {
  let answer = await get(path)
  while (answer.cache !== 'HIT') answer = await get(path)
  return answer
}
const overviewPages = () => Array.from({ length: Math.ceil(articles().length / ARTICLES_PER_PAGE) }, (_, i) => (i === 0 ? '/actueel' : `/actueel?pagina=${i + 1}`))
const warmAll = async () => {
  for (const path of ['/', ...overviewPages(), ...articles().map(pathOf)]) await storedUntilHit(path)
  await system.gateway.pageRefreshes.idle()
}
/** Each page's cache status on its next request: STALE for what the purge marked, HIT for what it kept. */
const statuses = async (paths: string[]) => Object.fromEntries(await Promise.all(paths.map(async (path) => [path, (await get(path)).cache] as const)))
const settle = async (paths: string[]) => {
  await system.gateway.pageRefreshes.idle()
  return Promise.all(paths.map((path) => storedUntilHit(path)))
}

t.test("a text change of an article: its page, its neighbours' and the overview page that lists it, nothing else", async (t) => {
  await warmAll()
  const list = articles()
  const changed = list[12] as StoredArticle
  const newTitle = `${changed.title} (herzien)`
  await edit(
    (entries) => {
      const entry = entries.find((other) => other.id === changed.id) as StoredArticle
      entry.title = newTitle
    },
    (titles) => titles.includes(newTitle),
  )
  const purged = await purge({ event: 'save', id: changed.id, section: 'topical', isNew: false, postDate: changed.postDate, slug: changed.slug, status: 'live' })
  t.same(purged.entry, { id: changed.id, tags: [`entry:${changed.id}`], lists: null, neighbours: null }, 'the entry only: its place in the lists is the same')

  const showing = new Set([10, 11, 12, 13, 14].map((i) => pathOf(list[i] as StoredArticle)))
  const overview = `/actueel?pagina=${Math.floor(12 / ARTICLES_PER_PAGE) + 1}`
  const refreshes = system.gateway.pageRefreshes
  const schedule = refreshes.schedule.bind(refreshes)
  const reasons = new Set<string>()
  refreshes.schedule = (key, run, reason, dropped) => {
    reasons.add(reason ?? 'expired')
    return schedule(key, run, reason, dropped)
  }
  t.teardown(() => void (refreshes.schedule = schedule))
  const now = await statuses(['/', ...overviewPages(), ...list.map(pathOf)])
  const stale = Object.keys(now).filter((path) => now[path] === 'STALE').sort()
  t.same(stale, [...showing, overview].sort(), 'stale: the article, the two either side of it, its overview page')
  t.equal(Object.values(now).filter((cache) => cache === 'HIT').length, Object.keys(now).length - stale.length, 'every other page fresh')
  t.equal(purged.pages, stale.length, 'the purge marked no page beyond them')
  t.same([...reasons], ['changed'], 'their refreshes go ahead of expired pages')

  const pages = await settle([...showing, overview])
  t.ok(pages.every((page) => page.html.includes(newTitle) || !page.html.includes(changed.title)), 'refreshed: no page shows the old title')
  t.match((await get(pathOf(changed))).html, newTitle, 'its own page has the new one')
  t.match((await get(pathOf(list[10] as StoredArticle))).html, newTitle, 'so has the "Meer nieuws" of the article two newer')
})

t.test("a new article: its section's lists and the articles next to it, not the articles far from it", async (t) => {
  await warmAll()
  const list = articles()
  const overviews = overviewPages()
  const newer = list[4] as StoredArticle
  const older = list[5] as StoredArticle
  const between = new Date((Date.parse(newer.postDate ?? '') + Date.parse(older.postDate ?? '')) / 2).toISOString()
  const added: StoredArticle = { ...older, id: '4200000', slug: 'nieuw-artikel-tussen-twee', uri: 'actueel/nieuw-artikel-tussen-twee', title: 'Een nieuw artikel tussen twee', postDate: between, dateUpdated: between }
  await edit(
    (entries) => void entries.push(added),
    (titles) => titles.includes(added.title),
  )
  const purged = await purge({ event: 'save', id: added.id, section: 'topical', isNew: true, postDate: added.postDate, slug: added.slug, status: 'live' })
  t.equal(purged.entry.lists, 'new')
  t.same(purged.entry.neighbours, [`entry:${newer.id}`, `entry:${older.id}`], 'the nearest newer and older article')

  const near = [2, 3, 4, 5, 6, 7].map((i) => pathOf(list[i] as StoredArticle))
  const far = [0, 10, 20, 29].map((i) => pathOf(list[i] as StoredArticle))
  const now = await statuses([...near, ...far, ...overviews])
  t.same(near.filter((path) => now[path] !== 'STALE'), [], 'the articles that show the neighbours are stale')
  t.same(far.filter((path) => now[path] !== 'HIT'), [], 'articles far from it stay fresh')
  t.same(overviews.filter((path) => now[path] !== 'STALE'), [], 'the overview pages stored (each shifts by one) are stale')
  const [first, second] = await settle([pathOf(newer), pathOf(older)])
  t.match(first?.html, added.title, 'the newer neighbour shows the new article under "Meer nieuws"')
  t.match(second?.html, added.title, 'and so does the older one')
  t.match((await storedUntilHit(pathOf(added))).html, newer.title, 'the new article shows its neighbours')
})

t.test('after a new article, a text change is still the entry alone', async (t) => {
  await warmAll()
  const list = articles()
  const changed = list[Math.floor(list.length / 3)] as StoredArticle
  const marker = 'Bijgewerkte tekst.'
  await edit(
    (entries) => {
      const entry = entries.find((other) => other.id === changed.id) as StoredArticle & { fields: { text?: string } }
      entry.fields.text = `<p>${marker}</p>${entry.fields.text ?? ''}`
      entry.dateUpdated = new Date().toISOString()
    },
    () => true,
  )
  const purged = await purge({ event: 'save', id: changed.id, section: 'topical', isNew: false, postDate: new Date(changed.postDate ?? '').toISOString(), slug: changed.slug, status: 'live' })
  t.same(purged.entry, { id: changed.id, tags: [`entry:${changed.id}`], lists: null, neighbours: null })
})
