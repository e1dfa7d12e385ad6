import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { pageItems } from '../renderer/app/components/pagination.tsx'
import { ARTICLES_PER_PAGE, INSURANCES_PER_PAGE, JOBS_PER_PAGE, SERVICES_PER_PAGE } from '../shared/constants.ts'
import { parsePageParam } from '../shared/routes.ts'
import { SCALES, writeScaledContent } from '../scripts/scale-content.ts'
import { loadGatewayConfig } from '../gateway/config.ts'
import { sizeOf } from '../gateway/cache/page-cache.ts'
import { locsOf, sitemapLocs } from './helpers/sitemap.ts'
import { type System, startSystem } from './helpers/system.ts'

// Ten times the content (issue 39's 10×: 1,000 articles, 50 jobs, 20
// services, 20 insurances), generated through CONTENT_DIR: an overview page
// is as big at its first page as at its last, whatever the number of pages,
// and every list is paged, each page bounded.
// The warm pass renders every page of the 10× site once (some 1,100): more than the 180 s tap gives a file on a loaded machine.
t.setTimeout(900_000)
const dir = mkdtempSync(join(tmpdir(), 'scale-pages-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const sizes = SCALES[10]
writeScaledContent(dir, sizes)
const SITE = 'https://www.havenborg.example'
const SITEMAP_MAX_URLS = 300
const PURGE_SECRET = 'scale-secret'
// One client crawls every page: its work budget (a render each on the cold pass) is lifted; every cache setting is the default.
const system = await startSystem({ CONTENT_DIR: dir, SITE_URL: SITE, SITEMAP_MAX_URLS: String(SITEMAP_MAX_URLS), PURGE_SECRET, CLIENT_WORK_BUDGET: '1000000' })
t.teardown(() => system.close())

/** A visitor's request and an editor's purge, to one system. */
const clientOf = (system: System) => ({
  get: async (path: string) => {
    const response = await request(`${system.url}${path}`)
    return { status: response.statusCode, html: await response.body.text(), cache: String(response.headers['x-cache']) }
  },
  purge: async (body: Record<string, unknown>) => {
    const response = await request(`${system.url}/api/purge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-purge-secret': PURGE_SECRET },
      body: JSON.stringify(body),
    })
    t.equal(response.statusCode, 200, `purge ${JSON.stringify(body)}`)
    return response.body.json()
  },
})
const { get, purge } = clientOf(system)

/** The content's entries of a section by slug, as the files in `dir` hold them now. */
function entriesBySlug(section: string): Map<string, { id: string; slug: string; postDate: string | null }> {
  const found = new Map<string, { id: string; slug: string; postDate: string | null }>()
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.json'))) {
    const file = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { entries?: { id: string; section: string; slug: string; postDate: string | null }[] }
    for (const entry of file.entries ?? []) if (entry.section === section) found.set(entry.slug, entry)
  }
  return found
}

const navOf = (html: string): string => /<nav class="pagination"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? ''
const numbersOf = (nav: string): string[] => [...nav.matchAll(/<a [^>]*>(?:<span class="visually-hidden">Pagina <\/span>)(\d+)<\/a>/g)].map((m) => m[1] ?? '')
const currentOf = (nav: string): string | undefined => /<a [^>]*aria-current="page"[^>]*>(?:<span[^>]*>[^<]*<\/span>)?(\d+)<\/a>/.exec(nav)?.[1]

t.test('the window: first, last, two either side of the current page, ellipses for the rest', async (t) => {
  t.same(pageItems(1, 167), [1, 2, 3, 'gap', 167])
  t.same(pageItems(80, 167), [1, 'gap', 78, 79, 80, 81, 82, 'gap', 167])
  t.same(pageItems(4, 167), [1, 2, 3, 4, 5, 6, 'gap', 167], 'a gap of one page shows that page')
  t.same(pageItems(167, 167), [1, 'gap', 165, 166, 167])
  t.same(pageItems(2, 3), [1, 2, 3])
  t.equal(parsePageParam('59995'), 59995, 'no ceiling hides articles past 59,994')
  t.equal(parsePageParam('1234567890'), undefined, 'a number longer than any list is not a page')
})

t.test("/actueel: an overview page's size does not grow with the pages", async (t) => {
  const pages = Math.ceil(sizes.topical / ARTICLES_PER_PAGE)
  const first = await get('/actueel')
  const last = await get(`/actueel?pagina=${pages}`)
  const middle = await get(`/actueel?pagina=${Math.floor(pages / 2)}`)
  for (const [name, page, current] of [['first', first, 1], ['middle', middle, Math.floor(pages / 2)], ['last', last, pages]] as const) {
    t.equal(page.status, 200, `${name} page: 200`)
    const nav = navOf(page.html)
    t.ok(numbersOf(nav).length <= 9, `${name} page: ${numbersOf(nav).length} page numbers of ${pages} (${numbersOf(nav).join(' ')})`)
    t.ok(nav.length < 2_500, `${name} page: the pagination is ${nav.length} bytes`)
    t.equal(currentOf(nav), String(current), `${name} page: its number is aria-current`)
    t.ok(numbersOf(nav).includes('1') && numbersOf(nav).includes(String(pages)), `${name} page: the first and the last page are there`)
  }
  t.match(navOf(middle.html), /class="pagination__gap" aria-hidden="true">…</, 'the pages left out are an ellipsis')
  // The same number of articles: the same size but for the numbers and titles in them.
  t.ok(Math.abs(first.html.length - middle.html.length) < 1_500, `first page ${first.html.length} bytes, page ${Math.floor(pages / 2)} ${middle.html.length} bytes`)
  for (const [name, page] of [['first', first], ['last', last]] as const) {
    t.ok(page.html.length < 45_000, `the ${name} page is ${page.html.length} bytes (its pagination used to list all ${pages} pages)`)
  }
  t.equal((await get(`/actueel?pagina=${pages + 1}`)).status, 404, 'past the last page: 404')
  t.equal((await get('/actueel?pagina=0')).status, 404, 'no page 0')
})

t.test('jobs, services and insurances: a page of a bounded size, the rest on further pages', async (t) => {
  for (const [path, perPage, count] of [
    ['/werken-bij', JOBS_PER_PAGE, sizes.jobs],
    ['/onze-dienstverlening', SERVICES_PER_PAGE, sizes.services],
    ['/onze-verzekeringen', INSURANCES_PER_PAGE, sizes.insurances],
  ] as const) {
    const pages = Math.ceil(count / perPage)
    const first = await get(path)
    t.equal(first.status, 200, path)
    const cards = (html: string) => (html.match(/<li [^>]*class="card/g) ?? []).length
    t.ok(cards(first.html) <= perPage + 1, `${path}: ${cards(first.html)} cards on the first page (at most ${perPage} and the open application)`)
    if (pages > 1) {
      t.equal(currentOf(navOf(first.html)), '1', `${path}: paginated, page 1 current`)
      const last = await get(`${path}?pagina=${pages}`)
      t.equal(last.status, 200, `${path}: its last page`)
      t.equal(currentOf(navOf(last.html)), String(pages), `${path}: the last page current`)
      const previous = pages - 1 === 1 ? path : `${path}?pagina=${pages - 1}`
      t.ok(last.html.slice(0, last.html.indexOf('</head>')).includes(`<link rel="prev" href="${SITE}${previous}"/>`), `${path}: rel="prev" to ${previous} in the head`)
      t.equal((await get(`${path}?pagina=${pages + 1}`)).status, 404, `${path}: past the last page, 404`)
    }
  }
})

t.test('the sitemap: an index of children per section, each split at SITEMAP_MAX_URLS, each address with lastmod', async (t) => {
  const index = await get('/sitemap.xml')
  t.equal(index.status, 200)
  t.match(index.html, /^<\?xml[^>]*>\n<sitemapindex /, 'a sitemap index')
  const children = locsOf(index.html).map((loc) => new URL(loc).pathname)
  t.ok(index.html.match(/<sitemap><loc>[^<]+<\/loc><lastmod>[^<]+<\/lastmod><\/sitemap>/g)?.length === children.length, 'each child with its lastmod')
  const topical = children.filter((path) => path.startsWith('/sitemap-topical-'))
  t.same(topical, Array.from({ length: Math.ceil(sizes.topical / SITEMAP_MAX_URLS) }, (_, i) => `/sitemap-topical-${i + 1}.xml`), `the articles split in ${SITEMAP_MAX_URLS}s`)
  t.ok(children.includes('/sitemap-pages-1.xml') && children.includes('/sitemap-jobs-1.xml'), 'the pages and every section have a child')
  const all = new Set<string>()
  for (const child of children) {
    const answer = await get(child)
    t.equal(answer.status, 200, child)
    const urls = answer.html.match(/<url>/g)?.length ?? 0
    t.ok(urls > 0 && urls <= SITEMAP_MAX_URLS, `${child}: ${urls} addresses`)
    t.equal(answer.html.match(/<url><loc>[^<]+<\/loc><lastmod>[^<]+<\/lastmod><\/url>/g)?.length, urls, `${child}: each with lastmod`)
    for (const loc of locsOf(answer.html)) all.add(loc)
  }
  t.equal([...all].filter((loc) => loc.startsWith(`${SITE}/actueel/`)).length, sizes.topical, 'every article once')
  t.equal((await get(`/sitemap-topical-${topical.length + 1}.xml`)).status, 404, 'no child past the last')
  t.equal((await get('/sitemap-onbekend-1.xml')).status, 404, 'no child of a group that is not one')
  t.match((await get('/robots.txt')).html, `Sitemap: ${SITE}/sitemap.xml`, 'robots.txt points at the index')

  t.equal((await get('/sitemap-topical-2.xml')).cache, 'HIT', 'a child is served from the cache')
  await purge({ sections: ['jobs'] })
  t.equal((await get('/sitemap-topical-2.xml')).cache, 'HIT', "a purge of the jobs keeps the articles' children")
  t.equal((await get('/sitemap-jobs-1.xml')).cache, 'MISS', "and drops the jobs' child")
  t.equal((await get('/sitemap.xml')).cache, 'HIT', 'the index, with the jobs back, from the cache')
  // A save of one article changes its lastmod: its group is built again, the others stay.
  const article = [...entriesBySlug('topical').values()][0]
  if (!article) throw new Error('no article')
  await purge({ tags: [`entry:${article.id}`] })
  t.equal((await get('/sitemap-jobs-1.xml')).cache, 'HIT', "a purge of one article keeps the jobs' child")
  t.equal((await get('/sitemap-topical-1.xml')).cache, 'MISS', "and drops the articles' children, whose lastmod it may change")
})

t.test('the default caches hold the site: a warm pass over every sitemap address comes from the page cache', async (t) => {
  const pages = (await sitemapLocs(system.url)).map((loc) => new URL(loc).pathname)
  t.ok(pages.length > sizes.topical, `${pages.length} addresses`)
  const pass = async () => {
    const answers: string[] = []
    let next = 0
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < pages.length) answers.push((await get(pages[next++] as string)).cache)
      }),
    )
    return answers
  }
  await pass()
  const warm = await pass()
  // A page whose TTL ran out during the cold pass is served at once (STALE) while it is rendered again in the background.
  const ratio = warm.filter((cache) => cache === 'HIT' || cache === 'STALE').length / warm.length
  t.ok(ratio >= 0.95, `warm pass: ${(ratio * 100).toFixed(1)} % from the page cache (${warm.filter((cache) => cache === 'HIT').length} HIT)`)
  // At 100× (some 11,000 pages) the defaults must still hold every page: 7/8 of the bounds are the sitemap's pages.
  const cache = system.gateway.pageCache
  const perPage = cache.bytes / cache.size
  const { pageMaxEntries, pageMaxBytes } = loadGatewayConfig({}).cache
  const hundredfold = 10 * pages.length
  t.ok(pageMaxEntries * (7 / 8) >= hundredfold, `PAGE_CACHE_MAX_ENTRIES ${pageMaxEntries} holds ${hundredfold} pages`)
  t.ok(pageMaxBytes * (7 / 8) >= hundredfold * perPage, `PAGE_CACHE_MAX_BYTES ${pageMaxBytes} holds ${hundredfold} pages of ${Math.round(perPage)} bytes`)
  t.ok(loadGatewayConfig({}).cache.maxEntries >= hundredfold, 'and the query cache their answers')
})

t.test('a stored page holds only the encodings clients asked for, and is counted at what it holds', async (t) => {
  const path = '/actueel?pagina=7'
  const cache = system.gateway.pageCache
  let answer = await get(path)
  while (answer.cache !== 'HIT') answer = await get(path)
  const page = cache.peek(path)
  t.ok(page, 'stored')
  t.equal(page?.gzip, undefined, 'asked for as it is only: no gzip copy')
  t.equal(page?.brotli, undefined, 'nor a brotli one')
  const bare = sizeOf(page as NonNullable<typeof page>, path)

  const asked = await request(`${system.url}${path}`, { headers: { 'accept-encoding': 'gzip' } })
  await asked.body.dump()
  t.equal(asked.headers['content-encoding'], 'gzip', 'the first client asking gzip gets it, compressed as it goes out')
  await cache.idle()
  const gzipped = cache.peek(path)
  t.ok(gzipped?.gzip, 'then the page holds its gzip copy, made off the event loop')
  t.equal(gzipped?.brotli, undefined, 'and still no brotli: nobody asked for it')
  t.equal(sizeOf(gzipped as NonNullable<typeof gzipped>, path), bare + (gzipped?.gzip?.byteLength ?? Number.NaN), 'counted at its body and that one copy')
  const hit = await request(`${system.url}${path}`, { headers: { 'accept-encoding': 'gzip' } })
  await hit.body.dump()
  t.equal(hit.headers['content-encoding'], 'gzip')
  t.equal(hit.headers['x-cache'], 'HIT', 'served from the stored copy')
})

t.test('background refreshes are bounded: a soft purge of the articles and 40 of them asked at once cost at most PAGE_REFRESH_CONCURRENCY renders at a time, one per page', async (t) => {
  const { pageRefreshConcurrency } = loadGatewayConfig({}).cache
  const paths = (await sitemapLocs(system.url)).map((loc) => new URL(loc).pathname).filter((path) => path.startsWith('/actueel/')).slice(0, 40)
  for (const path of paths) {
    let answer = await get(path)
    while (answer.cache !== 'HIT') answer = await get(path)
  }
  await system.gateway.pageRefreshes.idle()
  const refreshes = system.gateway.pageRefreshes
  const mostBefore = refreshes.mostInFlight
  const renderers = system.gateway.renderers
  const render = renderers.render.bind(renderers)
  let renders = 0
  // Held until every visitor has had its answer: no refresh can end before, whatever the machine's speed.
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  renderers.render = async (...args: Parameters<typeof render>) => {
    renders++
    await opened
    return render(...args)
  }
  t.teardown(() => {
    renderers.render = render
    open()
  })
  const articles = entriesBySlug('topical')
  await purge({ tags: paths.map((path) => `entry:${articles.get(path.slice('/actueel/'.length))?.id}`) })
  const answers = await Promise.all(paths.map((path) => get(path)))
  t.same(new Set(answers.map((answer) => answer.cache)), new Set(['STALE']), 'every visitor got the stored page at once')
  t.equal(refreshes.inFlight, pageRefreshConcurrency, `${refreshes.inFlight} refreshes running`)
  t.equal(refreshes.queued, paths.length - pageRefreshConcurrency, `${refreshes.queued} waiting their turn`)
  open()
  await refreshes.idle()
  t.ok(refreshes.mostInFlight <= pageRefreshConcurrency, `never more than ${pageRefreshConcurrency} at once (${refreshes.mostInFlight}; ${mostBefore} before the purge)`)
  const after = await Promise.all(paths.map((path) => get(path)))
  t.same(new Set(after.map((answer) => answer.cache)), new Set(['HIT']), 'then each page refreshed, from the cache')
  t.equal(renders, paths.length, 'one render per page')
})

t.test('a soft purge of a section: its pages answered STALE at once while one render refreshes each, then fresh with the changed content', async (t) => {
  // A system of its own whose pages and answers stay fresh for an hour: on the file's system a page stored by an earlier
  // test could pass its 30 s TTL during this one on a loaded machine and answer STALE (or be rendered again with the
  // changed content) for a reason other than the purge.
  const hour = String(3_600_000)
  const own = await startSystem({ CONTENT_DIR: dir, SITE_URL: SITE, PURGE_SECRET, PAGE_CACHE_TTL_MS: hour, CACHE_TTL_MS: hour })
  t.teardown(() => own.close())
  const { get, purge } = clientOf(own)
  const slug = 'adviseur-particuliere-verzekeringen'
  const path = `/werken-bij/${slug}`
  const other = '/over-ons'
  const sibling = `/werken-bij/${[...entriesBySlug('jobs').keys()].find((other) => other !== slug)}`
  for (const p of [path, other, sibling]) {
    t.equal((await get(p)).cache, 'MISS', `${p} is rendered`)
    t.equal((await get(p)).cache, 'HIT', `${p} is stored`)
  }
  // The editor changes the job: the embedded CMS reads its files again (it watches them).
  const file = join(dir, 'site-jobs.json')
  const content = JSON.parse(readFileSync(file, 'utf8')) as { entries: { id: string; slug: string; title: string; postDate: string | null }[] }
  const job = content.entries.find((entry) => entry.slug === slug)
  if (!job) throw new Error('no such job')
  job.title = 'Adviseur particuliere verzekeringen (nieuw)'
  writeFileSync(file, JSON.stringify(content))
  const cms = String(own.gateway.embeddedCmsUrl)
  const titleNow = async () => {
    const response = await request(cms, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: `{ entry(section: "jobs", slug: "${slug}") { title } }` }) })
    return ((await response.body.json()) as { data?: { entry?: { title?: string } } }).data?.entry?.title
  }
  while ((await titleNow()) !== job.title) await new Promise((resolve) => setImmediate(resolve))
  t.equal((await get(path)).cache, 'HIT', 'before the purge: the stored page')

  // Craft's webhook on the save (docs/craft.md): the entry's text changed, not its place in the lists.
  const saved = { event: 'save', id: job.id, section: 'jobs', isNew: false, postDate: job.postDate, slug, status: 'live' }
  const purged = (await purge({ entry: saved })) as { pages: number; hard: boolean; entry: { tags: string[]; lists: string | null } }
  t.equal(purged.hard, false, 'a purge is soft unless asked')
  t.same(purged.entry, { id: job.id, tags: [`entry:${job.id}`], lists: null, neighbours: null }, "a text change: the entry's pages, not its section's lists")
  t.ok(purged.pages > 0, `${purged.pages} stored pages marked stale`)
  const stale = await get(path)
  t.equal(stale.cache, 'STALE', 'the next request gets the stored page at once')
  t.notMatch(stale.html, /\(nieuw\)/, 'as it was')
  t.equal((await get(other)).cache, 'HIT', 'a page of another section stays fresh')
  t.equal((await get(sibling)).cache, 'HIT', 'and so does the page of another job: it does not show this one')
  // One render in the background refreshes it: wait for the changed page (state, not time).
  let fresh = await get(path)
  while (fresh.cache === 'STALE') fresh = await get(path)
  t.equal(fresh.cache, 'HIT', 'then the refreshed page, from the cache')
  t.match(fresh.html, /Adviseur particuliere verzekeringen \(nieuw\)/, 'with the changed content')

  const hard = (await purge({ tags: [`entry:${job.id}`], hard: true })) as { hard: boolean }
  t.equal(hard.hard, true)
  t.equal((await get(path)).cache, 'MISS', 'a hard purge drops the page: the next request renders it')
  const bad = await request(`${own.url}/api/purge`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-purge-secret': PURGE_SECRET }, body: '{"hard":"ja"}' })
  t.equal(bad.statusCode, 400, '"hard" must be true or false')
  await bad.body.dump()
})
