import t from 'tap'
import { SitemapBuilder, type SitemapEntry } from '../../../gateway/payload/sitemap.ts'
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
