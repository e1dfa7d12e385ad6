import t from 'tap'
import { SitemapBuilder, type SitemapEntry, type SitemapGroup, parseSitemapChild, sitemapChildPath, sitemapVariables } from '../../../gateway/payload/sitemap.ts'
import { DEFAULT_SITE_HANDLE } from '../../../shared/constants.ts'
import { createRouteTable } from '../../../shared/routes.ts'
import { CHANNELS } from '../../../shared/sections.ts'

// The sitemap built from a group's entries, without a service: test/seo.test.ts and test/scale.test.ts see it served.

const SITE = 'https://www.havenborg.example'
const routes = createRouteTable(DEFAULT_SITE_HANDLE)
const article = (slug: string, dateUpdated: string | null): SitemapEntry => ({ sectionHandle: CHANNELS.topical.section, slug, dateUpdated })

const locsOf = (xml: string): string[] => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1] as string)
const lastmodsOf = (xml: string): string[] => [...xml.matchAll(/<lastmod>([^<]+)<\/lastmod>/g)].map((match) => match[1] as string)

t.test("each child's lastmod in the index is the newest of its entries, wherever that one stands", async (t) => {
  const builder = new SitemapBuilder(routes, SITE, 3)
  const entries = [
    article('a', '2026-03-01T10:00:00Z'),
    article('b', '2026-09-15T08:30:00Z'),
    article('c', '2026-05-20T12:00:00Z'),
    // The second child: no date first, the newest last.
    article('d', null),
    article('e', '2025-01-01T00:00:00Z'),
    article('f', '2025-06-01T00:00:00Z'),
    // The third: no date at all.
    article('g', null),
  ]
  const built = builder.group('topical', {}, entries)
  t.same(
    built.children.map((child) => child.lastmod),
    ['2026-09-15T08:30:00.000Z', '2025-06-01T00:00:00.000Z', null],
    'the newest of each child (an ISO date), none for a child without dates',
  )
  const index = builder.index([{ group: 'topical', built }])
  t.same(locsOf(index), [1, 2, 3].map((n) => `${SITE}/sitemap-topical-${n}.xml`))
  t.same(lastmodsOf(index), ['2026-09-15T08:30:00.000Z', '2025-06-01T00:00:00.000Z'], 'the index says what its children say')
  t.match(index, `<sitemap><loc>${SITE}/sitemap-topical-3.xml</loc></sitemap>`, 'no lastmod where no entry has a date')
})

t.test('a group is split into children of at most maxUrls addresses, in order, none empty', async (t) => {
  const slugs = Array.from({ length: 7 }, (_, i) => `artikel-${i + 1}`)
  for (const [maxUrls, sizes] of [
    [3, [3, 3, 1]],
    [7, [7]],
    [1, [1, 1, 1, 1, 1, 1, 1]],
    [10, [7]],
  ] as const) {
    const built = new SitemapBuilder(routes, SITE, maxUrls).group('topical', {}, slugs.map((slug) => article(slug, null)))
    const children = built.children.map((child) => locsOf(child.xml))
    t.same(
      children.map((locs) => locs.length),
      sizes,
      `${maxUrls} per child`,
    )
    t.same(children.flat(), slugs.map((slug) => `${SITE}/actueel/${slug}`), `${maxUrls} per child: every address once, in order`)
  }
  t.same(new SitemapBuilder(routes, SITE, 3).group('topical', {}, []).children, [], 'no entries, no child')
})

t.test("an entry's own date in its child; an address no entry stands behind is not listed", async (t) => {
  const builder = new SitemapBuilder(routes, SITE, 50)
  const built = builder.group('topical', {}, [article('nieuw', '2026-10-01T08:00:00+02:00'), { sectionHandle: 'unknown', slug: 'x', dateUpdated: null }, article('geen-datum', 'not a date')])
  const xml = built.children[0]?.xml ?? ''
  t.match(xml, `<url><loc>${SITE}/actueel/nieuw</loc><lastmod>2026-10-01T06:00:00.000Z</lastmod></url>`)
  t.match(xml, `<url><loc>${SITE}/actueel/geen-datum</loc></url>`, 'a date that is none: no lastmod')
  t.same(locsOf(xml), [`${SITE}/actueel/nieuw`, `${SITE}/actueel/geen-datum`])
  t.equal(built.children[0]?.lastmod, '2026-10-01T06:00:00.000Z')
})

t.test('each channel lists its entries at its own canonical address; singles at their route; nothing else', async (t) => {
  const builder = new SitemapBuilder(routes, SITE, 50)
  const of = (group: SitemapGroup, entries: SitemapEntry[]) => locsOf(builder.group(group, {}, entries).children[0]?.xml ?? '')
  const entry = (sectionHandle: string, slug: unknown): SitemapEntry => ({ sectionHandle, slug: slug as string, dateUpdated: null })
  t.same(of('jobs', [entry(CHANNELS.jobs.section, 'adviseur')]), [`${SITE}/werken-bij/adviseur`])
  t.same(of('services', [entry(CHANNELS.services.section, 'schade-melden')]), [`${SITE}/onze-dienstverlening/schade-melden`])
  t.same(of('insurances', [entry(CHANNELS.insurances.section, 'autoverzekering')]), [`${SITE}/onze-verzekeringen/autoverzekering`])
  t.same(of('topical', [entry(CHANNELS.topical.section, null)]), [], 'an entry without a slug: no address')
  t.same(of('topical', [entry(CHANNELS.topical.section, 'a&b')]), [`${SITE}/actueel/a&amp;b`], 'escaped as XML')
  // The pages: by their single's handle, in the route table's order whatever the CMS's.
  const about = `${DEFAULT_SITE_HANDLE}About`
  const home = `${DEFAULT_SITE_HANDLE}Home`
  const contact = `${DEFAULT_SITE_HANDLE}Contact`
  const pages = of('pages', [entry(contact, contact), entry(about, about), entry(home, home)])
  const order = routes.canonicalStaticPaths().filter((path) => ['/', '/over-ons', '/contact'].includes(path))
  t.same(pages, order.map((path) => `${SITE}${path}`), 'in the route table order')
  t.equal(order.length, 3)
})

t.test('without an answer: the pages are the route table, a channel has none; an answer is built once', async (t) => {
  const builder = new SitemapBuilder(routes, SITE, 1000)
  const fallback = builder.group('pages', undefined, undefined)
  t.same(locsOf(fallback.children[0]?.xml ?? ''), routes.canonicalStaticPaths().map((path) => `${SITE}${path}`))
  t.equal(fallback.children[0]?.lastmod, null)
  t.equal(builder.group('pages', {}, undefined), fallback, 'the fallback is made once')
  t.same(builder.group('topical', undefined, undefined).children, [])
  const answer = {}
  const built = builder.group('topical', answer, [article('een', null)])
  t.equal(builder.group('topical', answer, [article('twee', null)]), built, 'the same answer: built once')
  t.not(builder.group('topical', {}, [article('twee', null)]), built, 'another answer: built again')
})

t.test('the XML: a urlset per child, a sitemapindex, one line each', async (t) => {
  const builder = new SitemapBuilder(routes, SITE, 50)
  const built = builder.group('topical', {}, [article('een', '2026-01-02T03:04:05Z'), article('twee', null)])
  t.equal(
    built.children[0]?.xml,
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
      `  <url><loc>${SITE}/actueel/een</loc><lastmod>2026-01-02T03:04:05.000Z</lastmod></url>\n  <url><loc>${SITE}/actueel/twee</loc></url>\n</urlset>\n`,
  )
  t.equal(
    builder.index([{ group: 'topical', built }, { group: 'jobs', built }]),
    '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
      `  <sitemap><loc>${SITE}/sitemap-topical-1.xml</loc><lastmod>2026-01-02T03:04:05.000Z</lastmod></sitemap>\n` +
      `  <sitemap><loc>${SITE}/sitemap-jobs-1.xml</loc><lastmod>2026-01-02T03:04:05.000Z</lastmod></sitemap>\n</sitemapindex>\n`,
  )
})

t.test("a child's name: the group and its number from 1, nothing else", async (t) => {
  t.equal(sitemapChildPath('topical', 2), '/sitemap-topical-2.xml')
  t.same(parseSitemapChild('topical-2'), { group: 'topical', n: 2 })
  t.same(parseSitemapChild('pages-999999'), { group: 'pages', n: 999999 })
  for (const name of ['topical-0', 'topical-01', 'topical-1000000', 'unknown-1', 'topical', '-1', 'topical-1.xml', 'xtopical-1']) t.equal(parseSitemapChild(name), undefined, name)
  t.same(sitemapVariables('topical', DEFAULT_SITE_HANDLE), { site: DEFAULT_SITE_HANDLE, section: [CHANNELS.topical.section] })
  const pages = sitemapVariables('pages', DEFAULT_SITE_HANDLE)
  t.ok(pages.section.includes(`${DEFAULT_SITE_HANDLE}About`), "the pages: the singles' sections")
  t.notOk(pages.section.includes(CHANNELS.topical.section))
})
