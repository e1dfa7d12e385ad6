import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { request } from 'undici'
import { rendererUrl } from '../gateway/renderers/renderer-pool.ts'
import { DEFERRED_SCRIPT_ID, PAYLOAD_SCRIPT_ID } from '../renderer/app/document-ids.ts'
import { DEFAULT_SITE_HANDLE as P } from '../shared/constants.ts'
import { FIXED_ARTICLES, FIXED_JOB_PAGES, FIXED_SERVICE_PAGES } from '../shared/routes.ts'
import { withProduct } from '../shared/sections.ts'
import { shippedContent, slugsOf, titleOf } from './helpers/content.ts'
import { documentTitleOf, h1Of } from './helpers/html.ts'
import { getPage } from './helpers/http.ts'
import { startSystem } from './helpers/system.ts'

const store = shippedContent()
const system = await startSystem()
t.teardown(() => system.close())

const get = (path: string, headers: Record<string, string> = {}) => getPage(`${system.url}${path}`, { headers })

/** Every row of the route table with the title its page must show. */
const expectations: [path: string, title: string][] = [
  ['/', titleOf(store, `${P}Home`)],
  ['/__home__', titleOf(store, `${P}Home`)],
  ['/about', titleOf(store, `${P}About`)],
  ['/over-ons', titleOf(store, `${P}About`)],
  ['/contact', titleOf(store, `${P}Contact`)],
  ['/content', titleOf(store, `${P}Content`)],
  ['/disclaimer', titleOf(store, `${P}Disclaimer`)],
  ['/polisvoorwaarden', titleOf(store, `${P}InsurancePolicyTerms`)],
  ['/algemene-voorwaarden', titleOf(store, `${P}TermsAndConditions`)],
  ['/privacy', titleOf(store, `${P}PrivacyAndCookiePolicy`)],
  ['/insurances', titleOf(store, `${P}Insurances`)],
  ['/onze-verzekeringen', titleOf(store, `${P}Insurances`)],
  ['/jobs', titleOf(store, `${P}JobsOverview`)],
  ['/werken-bij', titleOf(store, `${P}JobsOverview`)],
  ['/werken-bij/open-sollicitatie', titleOf(store, 'aboutJobsOpenApplication')],
  ['/topical', titleOf(store, `${P}TopicalOverview`)],
  ['/actueel', titleOf(store, `${P}TopicalOverview`)],
  ['/establishments', titleOf(store, `${P}Establishments`)],
  ['/kantoren', titleOf(store, `${P}Establishments`)],
  ['/part-of-licent', titleOf(store, `${P}PartOfLicent`)],
  ['/onderdeel-van-licent', titleOf(store, `${P}PartOfLicent`)],
  ['/services', titleOf(store, `${P}Services`)],
  ['/onze-dienstverlening', titleOf(store, `${P}ServicesOverview`)],
  ...FIXED_JOB_PAGES.map((slug): [string, string] => [`/werken-bij/${slug}`, titleOf(store, 'jobs', slug)]),
  ...FIXED_ARTICLES.map((template): [string, string] => {
    const slug = withProduct(template, P)
    return [`/actueel/${slug}`, titleOf(store, 'topical', slug)]
  }),
  ...FIXED_SERVICE_PAGES.map((slug): [string, string] => [`/onze-dienstverlening/${slug}`, titleOf(store, 'services', slug)]),
  ...slugsOf(store, 'jobs').map((slug): [string, string] => [`/jobs/${slug}`, titleOf(store, 'jobs', slug)]),
  ...slugsOf(store, 'jobs').map((slug): [string, string] => [`/werken-bij/${slug}`, titleOf(store, 'jobs', slug)]),
  ...slugsOf(store, 'topical').map((slug): [string, string] => [`/topical/${slug}`, titleOf(store, 'topical', slug)]),
  ...slugsOf(store, 'topical').map((slug): [string, string] => [`/actueel/${slug}`, titleOf(store, 'topical', slug)]),
  ...slugsOf(store, 'insurances').map((slug): [string, string] => [`/onze-verzekeringen/${slug}`, titleOf(store, 'insurances', slug)]),
  ...slugsOf(store, 'insurances').map((slug): [string, string] => [`/insurances/${slug}`, titleOf(store, 'insurances', slug)]),
  ...slugsOf(store, 'services').map((slug): [string, string] => [`/services/${slug}`, titleOf(store, 'services', slug)]),
]

t.test('every route renders its own Dutch content with status 200', async (t) => {
  const seenTitles = new Map<string, string>()
  for (const [path, title] of expectations) {
    const page = await get(path)
    t.equal(page.status, 200, `${path} status`)
    t.match(page.html, /^<!DOCTYPE html><html lang="nl"/, `${path} is a Dutch document`)
    t.equal(h1Of(page.html), title, `${path} shows its own <h1>`)
    t.equal((page.html.match(/<h1[\s>]/g) ?? []).length, 1, `${path} has one <h1>`)
    t.match(String(page.headers['content-type']), /^text\/html; charset=utf-8/)
    seenTitles.set(path, title)
  }
  const singles = expectations.filter(([path]) => !/\/(jobs|topical|services|onze-verzekeringen|insurances)\//.test(path)).map(([, title]) => title)
  t.ok(new Set(singles).size >= 16, 'the content pages do not share one title')
})

t.test('the overviews link every job, article and service', async (t) => {
  const jobs = await get('/werken-bij')
  for (const slug of slugsOf(store, 'jobs')) t.match(jobs.html, `href="/werken-bij/${slug}"`, `jobs overview links ${slug} at its Dutch address`)
  const services = await get('/onze-dienstverlening')
  for (const slug of FIXED_SERVICE_PAGES) t.match(services.html, `href="/onze-dienstverlening/${slug}"`)
  // Services is a Structure section: its order is the editors' (Craft's `lft`), not the titles' alphabet.
  const listed = [...services.html.matchAll(/href="\/onze-dienstverlening\/([a-z-]+)"/g)].map((match) => match[1])
  const structured = [...store.findEntries({ section: ['services'] }, undefined)].sort((a, b) => (a.lft ?? 0) - (b.lft ?? 0)).map((entry) => entry.slug)
  t.same([...new Set(listed)], structured, 'the services overview lists them in structure order')
  t.equal(listed[0], 'schade-melden', 'damage first')
  const topical = await get('/actueel')
  t.match(topical.html, 'href="/actueel/', 'news overview links articles at their Dutch addresses')
  t.notMatch(topical.html, 'href="/topical/', 'never at the English alias')
  const secondPage = await get('/actueel?pagina=2')
  t.equal(secondPage.status, 200, 'the second page of news exists')
  t.not(secondPage.html, topical.html, 'and lists other articles')
})

t.test('the home page carries only what its news cards show; the news overview keeps the images', async (t) => {
  const scriptJson = (html: string, id: string): unknown => {
    const text = new RegExp(`<script[^>]*id="${id}"[^>]*>([\\s\\S]*?)</script>`).exec(html)?.[1]
    return text === undefined ? undefined : JSON.parse(text)
  }
  const { html } = await get('/')
  const deferred = scriptJson(html, DEFERRED_SCRIPT_ID) as { latestArticles?: { entries: Record<string, unknown>[] } } | undefined
  const payload = scriptJson(html, PAYLOAD_SCRIPT_ID) as { data: { latestArticles?: { entries: Record<string, unknown>[] } } }
  const latest = (deferred?.latestArticles ?? payload.data.latestArticles)?.entries ?? []
  t.ok(latest.length > 0, 'the home page has its latest news')
  for (const article of latest) {
    t.match(html, String(article.title), `its card shows ${String(article.uri)}`)
    t.notOk('image' in article || 'author' in article, `no image or author shipped for ${String(article.uri)}`)
  }
  const topical = scriptJson((await get('/actueel')).html, PAYLOAD_SCRIPT_ID) as { data: Record<string, { entries?: { image?: unknown[] }[] }> }
  const listed = Object.values(topical.data).flatMap((part) => part.entries ?? [])
  t.ok(listed.some((article) => (article.image?.length ?? 0) > 0), 'the news overview still has its images')
})

t.test('layout: navigation from the CMS, menu button, footer with the legal links', async (t) => {
  const { html } = await get('/over-ons')
  const site = store.globalSet(['siteSettings'], null)
  t.ok(site, 'the content has site settings')
  const navigation = site?.fields.mainNavigation as { label: string; url: string }[]
  for (const link of navigation) t.match(html, `href="${link.url}"`, `nav links ${link.url}`)
  t.match(html, /<details class="site-menu"><summary class="menu-button" aria-controls="hoofdmenu">Menu<\/summary><\/details>/, 'a closed menu toggle (a <details> without open: it opens before hydration too)')
  t.match(html, /<footer/, 'a footer')
  for (const path of ['/disclaimer', '/privacy', '/algemene-voorwaarden']) t.match(html, `href="${path}"`)
  t.match(html, String(site?.fields.afmNumber), 'the AFM licence number')
  t.match(html, /loading-bar"[^>]*style="height:3px;background-color:#6798df/, 'the app loading bar')
})

t.test('unknown path: 404 with the notFound entry', async (t) => {
  const page = await get('/bestaat-niet?x=1')
  t.equal(page.status, 404)
  t.equal(h1Of(page.html), titleOf(store, 'notFound'))
  t.equal(documentTitleOf(page.html)?.split(' | ')[0], titleOf(store, 'notFound'), "the document's title is the entry's title, before the brand")
  t.match(page.html, /class="rich-text"/, 'the entry text follows the heading')
  t.match(page.html, /loading-bar loading-bar--error[^>]*background-color:#0072e3/, 'error page loading bar colour')
  t.match(page.html, /<meta name="robots" content="noindex"/)
  const payload = await request(`${system.url}/bestaat-niet/_payload.json?x=1`)
  t.equal(payload.statusCode, 404, 'its payload is a JSON 404')
  const body = (await payload.body.json()) as { error: { message: string; fatal: boolean } }
  // A parameter no route reads is no part of the address: not of the message either.
  t.same(body.error, { statusCode: 404, message: 'Page not found: /bestaat-niet', fatal: false })
})

t.test('unknown and invalid slugs', async (t) => {
  const unknown = await get('/jobs/deze-vacature-bestaat-niet')
  t.equal(unknown.status, 404, 'unknown slug is 404')
  t.equal(h1Of(unknown.html), titleOf(store, 'notFound'))
  const invalid = await get('/topical/Geen_Slug!')
  t.equal(invalid.status, 404, 'invalid slug is 404')
  const payload = await request(`${system.url}/topical/Geen_Slug!/_payload.json`)
  const body = (await payload.body.json()) as { error: { message: string } }
  t.equal(body.error.message, 'Page Not Found: /topical/Geen_Slug!')
  const long = await get(`/services/${'a'.repeat(200)}`)
  t.equal(long.status, 404, 'an over-long slug is a failed validation')
  const badPage = await request(`${system.url}/actueel/_payload.json?pagina=abc`)
  t.equal(badPage.statusCode, 404, 'a page number that is not one is 404')
})

t.test('a trailing slash redirects to the canonical path, never off-site', async (t) => {
  const page = await request(`${system.url}/over-ons/`)
  t.equal(page.statusCode, 301)
  t.equal(page.headers.location, '/over-ons')
  await page.body.dump()
  const sneaky = await request(`${system.url}//evil.example/`)
  t.equal(sneaky.statusCode, 400, 'a path that reads as another host is refused')
  t.equal(sneaky.headers.location, undefined)
  await sneaky.body.dump()
})

t.test('an encoded trailing slash never redirects to itself: it goes to the path without it, or is no page', async (t) => {
  for (const [path, location] of [
    ['/over-ons%2F', '/over-ons'],
    ['/%2F', '/'],
    ['/over-ons/%2F', '/over-ons'],
    ['/bestaat-niet%2F%2F', '/bestaat-niet'],
    ['/actueel%2F?pagina=2', '/actueel?pagina=2'],
    ['/%2F%2Fevil.example%2F', '/evil.example'],
  ] as const) {
    const answer = await request(`${system.url}${path}`)
    await answer.body.dump()
    t.not(answer.headers.location, path, `${path}: not to itself`)
    t.same([answer.statusCode, answer.headers.location], [301, location], `${path} -> ${location}`)
  }
})

t.test('a path that reads as another host never makes the gateway fetch from it', async (t) => {
  let reached = 0
  const elsewhere = createServer((_req, res) => {
    reached++
    res.writeHead(200, { 'content-type': 'text/html', 'x-csp-nonce': 'chosen' }).end('<script nonce="chosen">alert(1)</script>')
  })
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve))
  t.teardown(() => elsewhere.close())
  const { port } = elsewhere.address() as AddressInfo
  for (const path of [`//127.0.0.1:${port}/x`, `//127.0.0.1:${port}`, `//127.0.0.1:${port}/x?y=1`, `///127.0.0.1:${port}/x`]) {
    const answer = await request(`${system.url}${path}`)
    const html = await answer.body.text()
    t.equal(answer.statusCode, 400, path)
    t.notMatch(html, 'alert(1)', `${path}: nothing of the other host`)
  }
  t.equal(reached, 0, 'the other host was never asked')
  t.throws(() => rendererUrl(new URL('http://127.0.0.1:3001'), '//evil.example/x'), 'the pool refuses such a path itself')
  t.equal(rendererUrl(new URL('http://127.0.0.1:3001/ignored'), '/over-ons?a=1'), 'http://127.0.0.1:3001/over-ons?a=1')
})

t.test('one request id from gateway to renderer', async (t) => {
  // A fresh render (an unknown parameter no longer makes one: it is no part of the page's key).
  system.gateway.pageCache.clear()
  const page = await request(`${system.url}/contact`, { headers: { 'x-request-id': 'test-id-123' } })
  await page.body.text()
  t.equal(page.headers['x-request-id'], 'test-id-123')
  t.ok(system.rendererLogs.lines.some((line) => line.requestId === 'test-id-123'), 'the renderer logs with the same id')
  const bad = await request(`${system.url}/contact`, { headers: { 'x-request-id': 'bad id <script>' } })
  await bad.body.text()
  t.match(bad.headers['x-request-id'], /^[\w-]{8,}$/, 'an invalid incoming id is replaced by a fresh one')
  t.not(bad.headers['x-request-id'], 'bad id <script>')
})

t.test('every insurance card is one link to a page of its own, whose h1 is the card\'s title and which offers a next step', async (t) => {
  const overview = await get('/onze-verzekeringen')
  const cards = [...overview.html.matchAll(/<li [^>]*class="card"[^>]*>([\s\S]*?)<\/li>/g)].map((match) => match[1] ?? '')
  t.equal(cards.length, slugsOf(store, 'insurances').length, 'a card per insurance')
  for (const card of cards) {
    const links = [...card.matchAll(/<a [^>]*href="([^"]+)"[^>]*>([\s\S]*?)<\/a>/g)].filter((link) => !/^(tel|mailto):/.test(link[1] ?? ''))
    t.equal(links.length, 1, 'one link on the card')
    const [, href = '', name = ''] = links[0] ?? []
    t.match(href, /^\/onze-verzekeringen\/[a-z0-9-]+$/)
    const page = await get(href)
    t.equal(page.status, 200, `${href} answers`)
    t.equal(h1Of(page.html), name.replace(/<[^>]+>/g, '').trim(), `${href}: the card's title is the page's h1`)
    t.match(page.html, /<a class="button" href="tel:\+31881234500"[ >]/, `${href}: a call`)
    // To the address for questions about this insurance (its adviceEmail field), the office's when it has none.
    const email = (store.findEntries({ section: ['insurances'], uri: [href.slice(1)] }, undefined)[0]?.fields.adviceEmail as string | undefined) ?? 'info@havenborg.nl'
    t.match(page.html, `href="mailto:${email}?subject=Vraag%20over%20de%20`, `${href}: an e-mail about this insurance`)
    t.match(page.html, /href="\/contact"/, `${href}: the contact page`)
  }
  const home = await get('/')
  t.match(home.html, /href="\/onze-verzekeringen\/autoverzekering"/, 'the home page links the insurance\'s page, not an anchor of the overview')
  t.notMatch(home.html, /href="\/onze-verzekeringen#/)
})
