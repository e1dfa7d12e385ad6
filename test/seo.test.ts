import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE as P } from '../shared/constants.ts'
import { createRouteTable } from '../shared/routes.ts'
import { shippedContent, slugsOf, titleOf } from './helpers/content.ts'
import { decodeEntities } from './helpers/html.ts'
import { startFaultUpstream } from './helpers/fault-upstream.ts'
import { getPage } from './helpers/http.ts'
import { startSystem } from './helpers/system.ts'
import { locsOf, sitemapLocs } from './helpers/sitemap.ts'

const SITE = 'https://www.havenborg.example'
/** The embedded content's volume, on a host of its own as a CMS's or a CDN's is. */
const ASSETS = 'https://assets.havenborg.example/cms-assets'
const store = shippedContent()
const system = await startSystem({ SITE_URL: SITE, EMBEDDED_ASSET_URL: ASSETS })
t.teardown(() => system.close())

const get = (path: string) => getPage(`${system.url}${path}`)
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
    ['/jobs/adviseur-particuliere-verzekeringen', '/werken-bij/adviseur-particuliere-verzekeringen', '/werken-bij/adviseur-particuliere-verzekeringen'],
    ['/topical/premies-2027-uitgelegd', '/actueel/premies-2027-uitgelegd', '/actueel/premies-2027-uitgelegd'],
    ['/insurances/autoverzekering', '/onze-verzekeringen/autoverzekering', '/onze-verzekeringen/autoverzekering'],
    ['/services/schade-melden', '/onze-dienstverlening/schade-melden', '/onze-dienstverlening/schade-melden'],
    ['/services', '/onze-dienstverlening', '/onze-dienstverlening'],
    ['/services/dienstverleningsdocument', '/onze-dienstverlening/dienstverleningsdocument', '/onze-dienstverlening/dienstverleningsdocument'],
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
    const image = metaOf(html, 'og:image') ?? ''
    t.ok(image === `${SITE}/images/delen-havenborg.png` || image.startsWith(`${ASSETS}/`), `${path} og:image: the site's share image or the page's own from the CMS (${image})`)
    t.equal(metaOf(html, 'twitter:card'), 'summary_large_image', `${path} twitter card`)
    t.notMatch(html, /<meta name="robots" content="noindex"/, `${path} is indexable`)
  }
  const second = await get('/actueel?pagina=2')
  t.equal(canonicalOf(second.html), `${SITE}/actueel?pagina=2`, 'a list page keeps its page number')
})

t.test('every page of the sitemap names the brand in its title, within 65 characters: a long title is cut, never the brand', async (t) => {
  const paths = (await sitemapLocs(system.url)).map((loc) => new URL(loc).pathname)
  let cut = 0
  for (const path of paths) {
    const title = decodeEntities(/<title>([^<]*)<\/title>/.exec((await get(path)).html)?.[1] ?? '')
    t.ok(title.length <= 65, `${path}: "${title}" (${title.length})`)
    if (path === '/') t.match(title, /^Havenborg Assurantiën/, 'the home page begins with the brand')
    else t.match(title, / \| Havenborg Assurantiën$/, `${path}: ends with the brand`)
    if (title.includes('…')) cut++
  }
  t.ok(cut >= 1, `${cut} long title(s) cut before the brand`)
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
    t.ok(article?.datePublished && article?.author?.name, `NewsArticle for ${slug}: published, author`)
    t.ok(article?.image?.[0]?.startsWith(`${ASSETS}/`), `NewsArticle for ${slug}: the image's URL as the CMS gave it`)
    const crumbs = items.find((item) => item['@type'] === 'BreadcrumbList')
    const trail = crumbs?.itemListElement.map((item: { item: string }) => item.item)
    t.same(trail?.slice(0, 2), [`${SITE}/`, `${SITE}/actueel`], `breadcrumbs on article ${slug} start at home and the news`)
    t.equal(trail?.at(-1), article?.mainEntityOfPage, `the last crumb is article ${slug}`)
    t.equal(trail?.length, 3, `three crumbs on article ${slug}`)
  }
  const service = jsonLd((await get('/onze-verzekeringen/cyberverzekering')).html).find((item) => item['@type'] === 'Service')
  t.equal(service?.name, titleOf(store, 'insurances', 'cyberverzekering'), 'an insurance is a Service')
  t.equal(service?.provider?.['@type'], 'InsuranceAgency', 'provided by the intermediary')
  t.equal(service?.provider?.name, 'Havenborg Assurantiën')
  t.equal(service?.url, `${SITE}/onze-verzekeringen/cyberverzekering`)
  const offices = jsonLd((await get('/kantoren')).html).filter((item) => item['@type'] === 'InsuranceAgency')
  t.equal(offices.length, slugsOf(store, 'establishments').length, 'every office')
  t.ok(offices.every((office) => office.address?.streetAddress && office.telephone && office.openingHoursSpecification.length >= 5))
  const crumbs = jsonLd((await get('/onze-dienstverlening/beloningsbeleid')).html).find((item) => item['@type'] === 'BreadcrumbList')
  t.same(
    crumbs?.itemListElement.map((item: { item: string }) => item.item),
    [`${SITE}/`, `${SITE}/onze-dienstverlening`, `${SITE}/onze-dienstverlening/beloningsbeleid`],
  )
})

t.test('sitemap.xml lists every canonical address once, each with lastmod, and nothing that points elsewhere', async (t) => {
  const routes = createRouteTable(P)
  const index = await get('/sitemap.xml')
  t.equal(index.status, 200)
  t.match(String(index.headers['content-type']), /xml/)
  t.match(index.html, /<sitemapindex xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/, 'an index of sitemaps')
  const children = await Promise.all(locsOf(index.html).map((loc) => get(new URL(loc).pathname)))
  for (const child of children) t.equal(child.status, 200, 'each child answers')
  const sitemap = { html: children.map((child) => child.html).join('') }
  const urls = [...sitemap.html.matchAll(/<url>([\s\S]*?)<\/url>/g)].map((m) => m[1] ?? '')
  const locs = urls.map((url) => /<loc>([^<]+)<\/loc>/.exec(url)?.[1])
  t.ok(urls.length > 0)
  t.equal(new Set(locs).size, locs.length, 'no duplicates')
  for (const [i, url] of urls.entries()) t.match(url, /<lastmod>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z<\/lastmod>/, `${locs[i]} has a lastmod`)

  const canonical = routes.canonicalStaticPaths()
  for (const path of canonical) t.ok(locs.includes(`${SITE}${path}`), `lists ${path}`)
  for (const path of routes.staticPaths().filter((path) => !canonical.includes(path))) t.notOk(locs.includes(`${SITE}${path}`), `not the alias ${path}`)
  for (const slug of slugsOf(store, 'jobs')) t.ok(locs.includes(`${SITE}/werken-bij/${slug}`), `lists job ${slug} at its Dutch address`)
  for (const slug of slugsOf(store, 'topical')) t.ok(locs.includes(`${SITE}/actueel/${slug}`), `lists article ${slug} at its Dutch address`)
  for (const slug of slugsOf(store, 'insurances')) t.ok(locs.includes(`${SITE}/onze-verzekeringen/${slug}`), `lists insurance ${slug}`)
  t.notOk(locs.some((loc) => /\/(jobs|topical|insurances)\//.test(loc ?? '')), 'no English alias')
  for (const slug of slugsOf(store, 'services')) t.ok(locs.includes(`${SITE}/onze-dienstverlening/${slug}`), `lists service ${slug}`)
  t.notMatch(sitemap.html, /concept-nieuwsbericht/, 'no drafts')
  t.match(sitemap.html, /<url><loc>https:\/\/www\.havenborg\.example\/over-ons<\/loc><lastmod>2026-10-01T08:00:00\.000Z<\/lastmod>/, 'lastmod is the entry\'s dateUpdated')

  // /onze-dienstverlening and /content are distinct entries that name themselves
  // canonical, so they belong here; an alias (/services names /onze-dienstverlening) would fail this check.
  for (const loc of locs) {
    const page = await get((loc ?? '').slice(SITE.length))
    t.equal(page.status, 200, `${loc} answers 200`)
    t.equal(canonicalOf(page.html), loc, `${loc} names itself canonical`)
  }
})

t.test('when the CMS answers with errors and no data, the sitemap still lists the canonical addresses, briefly cached', async (t) => {
  const upstream = await startFaultUpstream()
  const down = await startSystem({ SITE_URL: SITE, CRAFT_API_URL: upstream.url, QUERY_CACHE: 'false' })
  t.teardown(async () => {
    await down.close()
    await upstream.close()
  })
  upstream.behave = (call) => (call.operationName === 'Sitemap' ? { kind: 'answer', status: 200, body: JSON.stringify({ errors: [{ message: 'Internal server error' }], data: null }) } : { kind: 'pass' })
  const response = await request(`${down.url}/sitemap.xml`)
  await response.body.dump()
  t.equal(response.statusCode, 200)
  t.same(await sitemapLocs(down.url), createRouteTable(P).canonicalStaticPaths().map((path) => `${SITE}${path}`))
  t.equal(response.headers['cache-control'], 'public, max-age=30')
})

t.test('robots.txt points to the sitemap and keeps previews out', async (t) => {
  const robots = await get('/robots.txt')
  t.equal(robots.status, 200)
  t.match(robots.html, `Sitemap: ${SITE}/sitemap.xml`)
  // Every line the README promises (previews, preview tokens in any position, /api and /cms/), and no other.
  t.same(
    robots.html.split('\n').filter((line) => line.startsWith('Disallow:')).sort(),
    ['Disallow: /*token=', 'Disallow: /*x-craft-live-preview', 'Disallow: /*x-craft-preview', 'Disallow: /api', 'Disallow: /cms/'],
  )
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
