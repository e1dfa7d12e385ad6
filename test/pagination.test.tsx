import { renderToStaticMarkup } from 'react-dom/server'
import t from 'tap'
import { TopicalScreen } from '../renderer/app/screens/topical-screen.tsx'
import { ARTICLES_PER_PAGE } from '../shared/constants.ts'
import type { PagePayload } from '../shared/payload.ts'
import { decodeEntities } from './helpers/html.ts'
import { getPage } from './helpers/http.ts'
import { startSystem } from './helpers/system.ts'

// The news overview's pages: "Vorige" and "Volgende" (links where there is a
// page to go to, greyed out words where there is none), the page numbers with
// the current one marked, and the neighbours as rel="prev"/"next" in the head.
// Page 1 is /actueel itself, never ?pagina=1.
const SITE = 'https://www.havenborg.example'
const system = await startSystem({ SITE_URL: SITE })
t.teardown(() => system.close())

const get = (path: string) => getPage(`${system.url}${path}`)

/** The rel="prev" and rel="next" links of some markup, by rel. */
const relLinksOf = (markup: string): Record<string, string> =>
  Object.fromEntries([...markup.matchAll(/<link rel="(prev|next)" href="([^"]+)"\/?>/g)].map((match) => [match[1] ?? '', decodeEntities(match[2] ?? '')]))

/** A page's rel links: those of its head, and how many its body has (none belongs there). */
function relLinksOfPage(html: string): { head: Record<string, string>; inBody: number } {
  const headEnd = html.indexOf('</head>')
  return { head: relLinksOf(html.slice(0, Math.max(0, headEnd))), inBody: Object.keys(relLinksOf(html.slice(headEnd))).length }
}

interface Pagination {
  label: string | undefined
  /** Every link of the pagination: its href, its text as read out, and its aria-current and rel. */
  links: { href: string; name: string; current: string | undefined; rel: string | undefined }[]
  /** "Vorige" or "Volgende" shown but not a link. */
  unlinked: string[]
}

function paginationOf(html: string): Pagination {
  const nav = /<nav class="pagination"([^>]*)>([\s\S]*?)<\/nav>/.exec(html)
  const navHtml = nav?.[2] ?? ''
  const links = [...navHtml.matchAll(/<a ([^>]*)>([\s\S]*?)<\/a>/g)].map((match) => {
    const attributes = match[1] ?? ''
    const attribute = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(attributes)?.[1]
    return {
      href: decodeEntities(attribute('href') ?? ''),
      name: decodeEntities((match[2] ?? '').replace(/<[^>]+>/g, '')).trim(),
      current: attribute('aria-current'),
      rel: attribute('rel'),
    }
  })
  return {
    label: /aria-label="([^"]*)"/.exec(nav?.[1] ?? '')?.[1],
    links,
    unlinked: [...navHtml.replace(/<a [\s\S]*?<\/a>/g, '').matchAll(/\b(Vorige|Volgende)\b/g)].map((match) => match[1] ?? ''),
  }
}

const overview = await get('/actueel')
const articleCount = Number(/"entryCount":(\d+)/.exec(overview.html)?.[1])
const lastPage = Math.ceil(articleCount / ARTICLES_PER_PAGE)

t.test('the embedded content has more than one page of news', async (t) => {
  t.equal(overview.status, 200)
  t.ok(lastPage >= 2, `${articleCount} articles, ${ARTICLES_PER_PAGE} a page: ${lastPage} pages`)
})

const pageLink = (n: number) => (n === 1 ? '/actueel' : `/actueel?pagina=${n}`)
const numbers = (current: number) =>
  Array.from({ length: lastPage }, (_, i) => ({ href: pageLink(i + 1), name: `Pagina ${i + 1}`, current: i + 1 === current ? 'page' : undefined, rel: undefined }))

t.test('the first page: no way back, "Volgende" and rel="next" to page 2, page 1 current', async (t) => {
  const pagination = paginationOf(overview.html)
  t.equal(pagination.label, 'Paginering', 'the navigation is labelled')
  t.same(relLinksOfPage(overview.html), { head: { next: `${SITE}/actueel?pagina=2` }, inBody: 0 }, 'the head has rel="next" only, the body none')
  t.same(pagination.links, [...numbers(1), { href: '/actueel?pagina=2', name: 'Volgende pagina', current: undefined, rel: 'next' }], 'the page numbers, page 1 at /actueel and current, then "Volgende"')
  t.same(pagination.unlinked, ['Vorige'], '"Vorige" is shown, not as a link')
})

t.test('the last page: "Vorige" and rel="prev" back, no way on, the last page current', async (t) => {
  for (const path of [`/actueel?pagina=${lastPage}`, `/topical?pagina=${lastPage}`]) {
    const page = await get(path)
    t.equal(page.status, 200, path)
    const pagination = paginationOf(page.html)
    const previous = pageLink(lastPage - 1)
    t.same(relLinksOfPage(page.html), { head: { prev: `${SITE}${previous}` }, inBody: 0 }, `${path}: the head has rel="prev" only, to the Dutch address; the body none`)
    t.same(pagination.links, [{ href: previous, name: 'Vorige pagina', current: undefined, rel: 'prev' }, ...numbers(lastPage)], `${path}: the links`)
    t.same(pagination.unlinked, ['Volgende'], `${path}: "Volgende" is shown, not as a link`)
  }
})

t.test('a middle page links both ways: the overview rendered with more articles than the embedded content has', async (t) => {
  const payload = JSON.parse((await get('/actueel/_payload.json?pagina=2')).html) as PagePayload
  const articles = payload.data.articles as { entryCount: number }
  articles.entryCount = 3 * ARTICLES_PER_PAGE
  const markup = renderToStaticMarkup(<TopicalScreen payload={payload} deferred={null} />)
  const pagination = paginationOf(markup)
  // Outside a document React leaves the links where they are rendered.
  t.same(relLinksOf(markup), { prev: `${SITE}/actueel`, next: `${SITE}/actueel?pagina=3` }, 'rel="prev" to page 1, rel="next" to page 3')
  t.same(
    pagination.links.map(({ href, name, current, rel }) => [href, name, current, rel]),
    [
      ['/actueel', 'Vorige pagina', undefined, 'prev'],
      ['/actueel', 'Pagina 1', undefined, undefined],
      ['/actueel?pagina=2', 'Pagina 2', 'page', undefined],
      ['/actueel?pagina=3', 'Pagina 3', undefined, undefined],
      ['/actueel?pagina=3', 'Volgende pagina', undefined, 'next'],
    ],
    '"Vorige", the page numbers with page 2 current, "Volgende"',
  )
  t.same(pagination.unlinked, [], 'both are links')
})
