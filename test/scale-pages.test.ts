import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { pageItems } from '../renderer/components/pagination.tsx'
import { ARTICLES_PER_PAGE, INSURANCES_PER_PAGE, JOBS_PER_PAGE, SERVICES_PER_PAGE } from '../shared/constants.ts'
import { parsePageParam } from '../shared/routes.ts'
import { SCALES, writeScaledContent } from '../scripts/scale-content.ts'
import { startSystem } from './helpers/system.ts'

// Ten times the content (issue 39's 10×: 1,000 articles, 50 jobs, 20
// services, 20 insurances), generated through CONTENT_DIR: an overview page
// is as big at its first page as at its last, whatever the number of pages,
// and every list is paged, each page bounded.
const dir = mkdtempSync(join(tmpdir(), 'scale-pages-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const sizes = SCALES[10]
writeScaledContent(dir, sizes)
const SITE = 'https://www.havenborg.example'
const system = await startSystem({ CONTENT_DIR: dir, SITE_URL: SITE })
t.teardown(() => system.close())

const get = async (path: string) => {
  const response = await request(`${system.url}${path}`)
  return { status: response.statusCode, html: await response.body.text() }
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
