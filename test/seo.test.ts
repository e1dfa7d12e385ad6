import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE as P } from '../shared/constants.ts'
import { createRouteTable } from '../shared/routes.ts'
import { shippedContent, slugsOf, titleOf } from './helpers/content.ts'
import { decodeEntities } from './helpers/html.ts'
import { startSystem } from './helpers/system.ts'

const SITE = 'https://www.havenborg.example'
const store = shippedContent()
const system = await startSystem({ SITE_URL: SITE })
t.teardown(() => system.close())

const get = async (path: string) => {
  const response = await request(`${system.url}${path}`)
  return { status: response.statusCode, headers: response.headers, html: await response.body.text() }
}
const attr = (html: string, pattern: RegExp): string | undefined => {
  const value = pattern.exec(html)?.[1]
  return value === undefined ? undefined : decodeEntities(value)
}
const canonicalOf = (html: string) => attr(html, /<link rel="canonical" href="([^"]+)"/)
const metaOf = (html: string, key: string) => attr(html, new RegExp(`<meta (?:name|property)="${key}" content="([^"]*)"`))
const jsonLd = (html: string): Record<string, any>[] =>
  [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1] ?? 'null'))

t.test('alias pairs share one canonical address; every page has title, description, Open Graph and Twitter tags', async (t) => {
  const pairs: [string, string, string][] = [
    ['/about', '/over-ons', '/over-ons'],
    ['/insurances', '/onze-verzekeringen', '/onze-verzekeringen'],
    ['/jobs', '/werken-bij', '/werken-bij'],
    ['/topical', '/actueel', '/actueel'],
    ['/establishments', '/kantoren', '/kantoren'],
    ['/part-of-licent', '/onderdeel-van-licent', '/onderdeel-van-licent'],
    ['/', '/__home__', '/'],
    ['/jobs/allround-schadebehandelaar', '/werken-bij/allround-schadebehandelaar', '/werken-bij/allround-schadebehandelaar'],
    ['/services/schade-melden', '/onze-dienstverlening/schade-melden', '/onze-dienstverlening/schade-melden'],
  ]
  for (const [alias, dutch, canonical] of pairs) {
    t.equal(canonicalOf((await get(alias)).html), `${SITE}${canonical}`, `${alias} -> ${canonical}`)
    t.equal(canonicalOf((await get(dutch)).html), `${SITE}${canonical}`, `${dutch} -> ${canonical}`)
  }
  for (const path of createRouteTable(P).staticPaths()) {
    const { html } = await get(path)
    t.match(html, /<title>[^<]+<\/title>/, `${path} title`)
    t.ok((metaOf(html, 'description') ?? '').length > 40, `${path} meta description`)
    t.ok(metaOf(html, 'og:title'), `${path} og:title`)
    t.equal(metaOf(html, 'og:url'), canonicalOf(html), `${path} og:url is the canonical address`)
    t.match(metaOf(html, 'og:image') ?? '', /^https:\/\/www\.havenborg\.example\/images\//, `${path} og:image`)
    t.equal(metaOf(html, 'twitter:card'), 'summary_large_image', `${path} twitter card`)
    t.notMatch(html, /<meta name="robots" content="noindex"/, `${path} is indexable`)
  }
  const second = await get('/actueel?pagina=2')
  t.equal(canonicalOf(second.html), `${SITE}/actueel?pagina=2`, 'a list page keeps its page number')
})

t.test('structured data', async (t) => {
  const home = jsonLd((await get('/')).html)
  const agency = home.find((item) => item['@type'] === 'InsuranceAgency')
  t.ok(agency, 'InsuranceAgency on home')
  t.equal(agency?.address?.addressCountry, 'NL')
  t.ok(agency?.telephone)

  for (const slug of slugsOf(store, 'jobs')) {
    const items = jsonLd((await get(`/jobs/${slug}`)).html)
    const posting = items.find((item) => item['@type'] === 'JobPosting')
    t.equal(posting?.title, titleOf(store, 'jobs', slug), `JobPosting for ${slug}`)
    t.equal(posting?.baseSalary?.currency, 'EUR')
    t.ok(posting?.datePosted && posting?.hiringOrganization?.name && posting?.jobLocation?.address?.addressLocality)
    t.ok(items.some((item) => item['@type'] === 'BreadcrumbList'), `breadcrumbs on ${slug}`)
  }
  for (const slug of slugsOf(store, 'topical')) {
    const items = jsonLd((await get(`/topical/${slug}`)).html)
    const article = items.find((item) => item['@type'] === 'NewsArticle')
    t.equal(article?.headline, titleOf(store, 'topical', slug), `NewsArticle for ${slug}`)
    t.ok(article?.datePublished && article?.author?.name && article?.image?.[0]?.startsWith(SITE))
  }
  const offices = jsonLd((await get('/kantoren')).html).filter((item) => item['@type'] === 'InsuranceAgency')
  t.equal(offices.length, slugsOf(store, 'establishments').length, 'every office')
  t.ok(offices.every((office) => office.address?.streetAddress && office.telephone && office.openingHoursSpecification.length >= 5))
  const crumbs = jsonLd((await get('/onze-dienstverlening/beloningsbeleid')).html).find((item) => item['@type'] === 'BreadcrumbList')
  t.same(
    crumbs?.itemListElement.map((item: { item: string }) => item.item),
    [`${SITE}/`, `${SITE}/onze-dienstverlening`, `${SITE}/onze-dienstverlening/beloningsbeleid`],
  )
})

t.test('sitemap.xml lists every public page and every slug once, with lastmod', async (t) => {
  const sitemap = await get('/sitemap.xml')
  t.equal(sitemap.status, 200)
  t.match(String(sitemap.headers['content-type']), /xml/)
  const locs = [...sitemap.html.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1])
  t.equal(new Set(locs).size, locs.length, 'no duplicates')
  for (const path of ['/', '/over-ons', '/contact', '/werken-bij', '/actueel', '/kantoren', '/onze-dienstverlening', '/privacy']) {
    t.ok(locs.includes(`${SITE}${path === '/' ? '/' : path}`), `lists ${path}`)
  }
  t.notOk(locs.includes(`${SITE}/about`), 'not the aliases')
  for (const slug of slugsOf(store, 'jobs')) t.ok(locs.some((loc) => loc?.endsWith(`/${slug}`)), `lists job ${slug}`)
  for (const slug of slugsOf(store, 'topical')) t.ok(locs.some((loc) => loc?.endsWith(`/${slug}`)), `lists article ${slug}`)
  for (const slug of slugsOf(store, 'services')) t.ok(locs.includes(`${SITE}/onze-dienstverlening/${slug}`), `lists service ${slug}`)
  t.notMatch(sitemap.html, /concept-nieuwsbericht/, 'no drafts')
  t.match(sitemap.html, /<url><loc>https:\/\/www\.havenborg\.example\/over-ons<\/loc><lastmod>\d{4}-\d\d-\d\dT/, 'lastmod from the CMS')
})

t.test('robots.txt points to the sitemap and keeps previews out', async (t) => {
  const robots = await get('/robots.txt')
  t.equal(robots.status, 200)
  t.match(robots.html, `Sitemap: ${SITE}/sitemap.xml`)
  t.match(robots.html, 'Disallow: /*x-craft-preview')
  t.match(robots.html, 'Disallow: /*x-craft-live-preview')
  t.match(robots.html, 'Disallow: /api')
})

t.test('preview responses and error pages are noindex', async (t) => {
  const preview = await get('/over-ons?x-craft-preview=1&token=preview-token-about-draft')
  t.match(preview.html, /<meta name="robots" content="noindex"/)
  t.equal(preview.headers['x-robots-tag'], 'noindex')
  const missing = await get('/niet-hier')
  t.match(missing.html, /<meta name="robots" content="noindex"/)
  t.equal(missing.headers['x-robots-tag'], 'noindex')
  t.notOk(canonicalOf(missing.html), 'no canonical on an error page')
})
