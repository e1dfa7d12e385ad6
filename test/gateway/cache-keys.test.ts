import type { IncomingMessage, ServerResponse } from 'node:http'
import t from 'tap'
import { request } from 'undici'
import { PageCache } from '../../gateway/cache/page-cache.ts'
import { createPageCacheHits } from '../../gateway/cache/page-cache-hits.ts'
import { NOT_FOUND_PAGE_KEY } from '../../gateway/pages/not-found-page.ts'
import { listedKey } from '../../gateway/plugins/app/page-cache.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { pageAddress } from '../../shared/page-address.ts'
import { createRouteTable } from '../../shared/routes.ts'
import { splitSitePath } from '../../shared/site-path.ts'
import { startFaultySystem } from '../helpers/fault-upstream.ts'
import { get as getUrl, purge as sendPurge } from '../helpers/http.ts'
import { type System, startSystem } from '../helpers/system.ts'
import { sitemapLocs } from '../helpers/sitemap.ts'

/**
 * Issue 31, items 1 and 3: a page's key holds only what changes the answer,
 * a 404 is one stored page and one cached query, and the sitemap's pages
 * keep a segment of the page cache no other key can evict.
 */
const routes = createRouteTable(DEFAULT_SITE_HANDLE)
const { system, upstream } = await startFaultySystem(t, { PURGE_SECRET: 'cache-keys-secret' })

const get = (target: System, path: string) => getUrl(`${target.url}${path}`)

/** Renders the renderer answered so far, by its own metrics. */
async function renders(target: System): Promise<number> {
  const text = await (await request(`${target.rendererUrl}/metrics`)).body.text()
  let total = 0
  for (const match of text.matchAll(/^http_requests_total\{[^}]*route="\/\*"[^}]*\} (\d+)/gm)) total += Number(match[1])
  return total
}

/** Runs the requests `connections` at a time. */
async function all(target: System, paths: string[], connections = 8): Promise<{ status: number; cache: string | undefined; body: string }[]> {
  const answers: { status: number; cache: string | undefined; body: string }[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < paths.length) answers.push(await get(target, paths[next++] as string))
    }),
  )
  return answers
}

async function purgeSections(sections: string[]): Promise<void> {
  const { status } = await sendPurge(system.url, { sections, hard: true }, { secret: 'cache-keys-secret' })
  if (status !== 200) throw new Error(`purge: ${status}`)
}

const payloadOf = (html: string): Record<string, unknown> => JSON.parse(/<script type="application\/json" id="__PAYLOAD__">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? 'null') as Record<string, unknown>

t.test('an address is its path in one encoding and the query parameters its route reads', async (t) => {
  const address = (url: string) => {
    const { rawPath, search } = pageAddress(splitSitePath(url) ?? { rawPath: '', search: '', path: '' }, routes)
    return `${rawPath}${search}`
  }
  t.equal(address('/over-ons?utm_source=x&fbclid=y'), '/over-ons')
  t.equal(address('/?&&&&&a=1'), '/')
  t.equal(address('/over%2Dons'), '/over-ons', 'an unreserved character percent-encoded')
  t.equal(address('/actueel?utm=1&pagina=2&pagina=3'), '/actueel?pagina=2', 'the overview reads its page number, the first one')
  t.equal(address('/over-ons?pagina=2'), '/over-ons', 'a page that is not paginated reads none')
  t.equal(address('/x/%3Cscript%3E'), '/x/%3Cscript%3E')
})

t.test('unknown parameters share the page: one render for any number of them, from the cache', async (t) => {
  const first = await get(system, '/over-ons?utm_source=first')
  t.equal(first.status, 200)
  t.equal((payloadOf(first.body).fullPath as string), '/over-ons', 'the renderer got the address without the parameter')
  const before = await renders(system)
  const answers = await all(system, [
    ...Array.from({ length: 30 }, (_, i) => `/over-ons?utm_source=${i}&utm_campaign=c${i}`),
    '/over%2Dons',
    '/over-ons?&&&&&&&&',
  ])
  t.same(new Set(answers.map((a) => `${a.status} ${a.cache}`)), new Set(['200 HIT']), 'every one a hit of the one stored page')
  t.equal(await renders(system), before, 'no render')

  await get(system, '/?a=0')
  const home = await renders(system)
  const homes = await all(system, Array.from({ length: 20 }, (_, i) => `/?a=${i + 1}`))
  t.same(new Set(homes.map((a) => a.cache)), new Set(['HIT']))
  t.equal(await renders(system), home)
})

t.test('the fast path finds the page of an address with unknown parameters', async (t) => {
  const cache = new PageCache({ maxEntries: 10, maxBytes: 1_000_000, ttlMs: 60_000, staleIfErrorMs: 0 })
  cache.store(cache.ticket(), '/over-ons', 200, { 'content-type': 'text/html' }, Buffer.from('<p>over ons</p>'))
  const answer = createPageCacheHits({ pageCache: cache, routes, accepting: () => true, isHttps: () => false, strictTransportSecurity: '', onHit: () => {} })
  const answered = (url: string): boolean => {
    const response = { writeHead: () => response, end: () => undefined } as unknown as ServerResponse
    return answer({ method: 'GET', url, headers: {} } as unknown as IncomingMessage, response)
  }
  t.ok(answered('/over-ons'))
  t.ok(answered('/over-ons?utm_source=x'))
  t.ok(answered('/over%2Dons'))
  t.notOk(answered('/over-ons?x-craft-preview=1&token=abc'), 'a preview goes to the full route')
})

t.test('404s of unknown paths cost one render and at most the two layout queries, however many come', async (t) => {
  // Unknown slugs are decided by the cached sitemap (its own test is below).
  t.equal((await get(system, '/sitemap.xml')).status, 200)
  const callsBefore = upstream.calls.length
  const rendersBefore = await renders(system)
  const kinds = [
    (i: number) => `/bestaat-niet-${i}`,
    (i: number) => `/actueel/onbekend-${i}`,
    (i: number) => `/werken-bij/onbekend-${i}?utm_source=${i}`,
    (i: number) => `/Over-Ons-${i}`,
    (i: number) => `/images/x-${i}.png`,
    (i: number) => `/assets/..%2f${i}`,
    (i: number) => `/topical/Bad_Slug_${i}`,
    () => '/api',
  ]
  const paths = Array.from({ length: 500 }, (_, i) => (kinds[i % kinds.length] as (i: number) => string)(i))
  const answers = await all(system, paths)
  t.same(new Set(answers.map((a) => a.status)), new Set([404]), 'every one a 404')
  t.equal((await renders(system)) - rendersBefore, 1, 'one render')
  t.ok(upstream.calls.length - callsBefore <= 2, `at most the layout and notFound queries (${upstream.calls.length - callsBefore})`)

  // Each visitor's page carries its own address, for hydration and the 404 message.
  const page = await get(system, '/bestaat-niet-meer?x=1')
  t.equal(page.status, 404)
  t.equal(page.cache, 'HIT')
  t.match(page.body, /<meta name="robots" content="noindex/)
  const payload = payloadOf(page.body)
  t.equal(payload.path, '/bestaat-niet-meer')
  t.equal(payload.fullPath, '/bestaat-niet-meer')
  t.equal((payload.error as { message: string }).message, 'Page not found: /bestaat-niet-meer')
  t.notMatch(page.body, /__404__/, 'nothing of the address it was rendered for')
  const invalid = payloadOf((await get(system, '/topical/Bad_Slug')).body)
  t.equal((invalid.error as { message: string }).message, 'Page Not Found: /topical/Bad_Slug')
})

t.test('the stored 404 page and its notFound answer go with a purge of their section, and stay through others', async (t) => {
  const purge = async (sections: string[]) => {
    t.equal((await sendPurge(system.url, { sections, hard: true }, { secret: 'cache-keys-secret' })).status, 200)
  }
  await get(system, '/weg-ermee')
  t.equal((await get(system, '/weg-ermee')).cache, 'HIT')
  await purge(['jobs'])
  t.equal((await get(system, '/weg-ermee')).cache, 'HIT', 'a section it was not built from')
  const callsBefore = upstream.calls.length
  await purge(['notFound'])
  t.equal((await get(system, '/weg-ermee')).cache, 'MISS', 'rendered again')
  t.same(upstream.calls.slice(callsBefore).map((call) => call.operationName), ['NotFound'], 'with the notFound entry asked for again')
})

t.test('a slug the CMS does not know: one call for the slug and the sitemap beside it, then unknown slugs cost nothing', async (t) => {
  await get(system, '/bestaat-niet')
  await purgeSections(['topical', 'jobs', 'insurances', 'services'])
  const callsBefore = upstream.calls.length
  const rendersBefore = await renders(system)
  const first = await get(system, '/topical/bestaat-niet-als-artikel')
  t.equal(first.status, 404)
  // The articles' sitemap group asked beside it: once it is in, it answers for the next slugs; the index asks the other purged groups.
  t.equal((await get(system, '/sitemap.xml')).status, 200)
  t.same(
    upstream.calls.slice(callsBefore).map((call) => call.operationName).sort(),
    ['ArticleBySlug', 'Sitemap', 'Sitemap', 'Sitemap', 'Sitemap'],
    'the article query (with its neighbours) and one sitemap group per purged section, once each',
  )
  const calls = upstream.calls.length
  const others = await all(system, Array.from({ length: 40 }, (_, i) => [`/actueel/nog-een-${i}`, `/werken-bij/geen-vacature-${i}`, `/onze-verzekeringen/geen-${i}`, `/services/geen-${i}`][i % 4] as string))
  t.same(new Set(others.map((answer) => answer.status)), new Set([404]), 'each a 404')
  t.equal(upstream.calls.length, calls, 'not one CMS call for 40 unknown slugs of four sections')
  t.equal(await renders(system), rendersBefore, 'no render of their own')
  for (const path of ['/actueel/premies-2027-uitgelegd', '/werken-bij/adviseur-particuliere-verzekeringen', '/onze-verzekeringen/reisverzekering', '/services/schade-melden']) {
    t.equal((await get(system, path)).status, 200, `${path}, listed, is the page`)
  }
})

t.test('a redirect is all a redirected path costs: no render after it', async (t) => {
  await get(system, '/kifid')
  const rendersBefore = await renders(system)
  for (let i = 0; i < 5; i++) {
    const response = await request(`${system.url}/kifid`)
    await response.body.dump()
    t.equal(response.statusCode, 302, 'the CMS rule')
  }
  t.equal(await renders(system), rendersBefore, 'no render')
})

t.test('_payload.json of an unknown page is a cached 404', async (t) => {
  await get(system, '/bestaat-niet/_payload.json')
  const callsBefore = upstream.calls.length
  for (const path of ['/bestaat-niet/_payload.json', '/ook-niet/_payload.json', '/ook-niet/_payload.json?utm_source=x']) {
    const response = await request(`${system.url}${path}`)
    const body = (await response.body.json()) as { status: number; fullPath: string }
    t.equal(response.statusCode, 404, path)
    t.equal(response.headers['x-cache'], 'HIT', path)
    t.equal(body.status, 404)
  }
  t.equal(upstream.calls.length, callsBefore, 'no CMS call')
})

t.test('a page number past the cached list is a 404 without a CMS call', async (t) => {
  t.equal((await get(system, '/actueel')).status, 200)
  await get(system, '/bestaat-niet')
  const callsBefore = upstream.calls.length
  const rendersBefore = await renders(system)
  for (const path of ['/actueel?pagina=99', '/actueel?pagina=98&utm_source=x', '/topical?pagina=9999']) {
    const answer = await get(system, path)
    t.equal(answer.status, 404, path)
    t.equal(answer.cache, 'HIT', `${path}: the stored 404 page`)
  }
  t.equal(upstream.calls.length, callsBefore, 'no CMS call')
  t.equal(await renders(system), rendersBefore, 'no render')
})

t.test('the sitemap segment: no other key evicts its pages', async (t) => {
  const cache = new PageCache({ maxEntries: 48, maxBytes: 10_000_000, ttlMs: 60_000, staleIfErrorMs: 0, listed: listedKey(routes) })
  const listed = routes.canonicalStaticPaths()
  for (const path of listed) cache.store(cache.ticket(), path, 200, {}, Buffer.from(path))
  cache.store(cache.ticket(), NOT_FOUND_PAGE_KEY, 404, {}, Buffer.from('404'))
  for (let i = 0; i < 1000; i++) cache.store(cache.ticket(), `/about?n=${i}`, 200, {}, Buffer.from(`unlisted ${i}`))
  t.same(
    listed.filter((path) => cache.get(path) === undefined),
    [],
    'every page of the sitemap still there',
  )
  t.ok(cache.get(NOT_FOUND_PAGE_KEY), 'and the 404 page')
  t.ok(cache.size <= 48, 'within PAGE_CACHE_MAX_ENTRIES')
})

t.test('after a flood of unknown parameters and paths, with the renderer stopped, every sitemap page still answers', async (t) => {
  const small = await startSystem({ PAGE_CACHE_MAX_ENTRIES: '64' })
  t.teardown(() => small.close())
  const pages = (await sitemapLocs(small.url)).map((loc) => new URL(loc).pathname)
  t.ok(pages.length >= 30, `${pages.length} pages in the sitemap`)
  for (const path of pages) t.equal((await get(small, path)).status, 200, path)
  // Aliases and fixed pages by their slug routes are stored pages outside the sitemap; the rest are no pages of their own.
  const slugRoutes = routes.routes.filter((route) => route.paths[0]?.endsWith('/:slug'))
  const bySlugRoute = routes.routes.flatMap((route) => {
    const slugRoute = slugRoutes.find((other) => other.screen === route.screen)
    return route.fixedSlug && slugRoute ? [(slugRoute.paths[0] as string).replace(':slug', route.fixedSlug)] : []
  })
  const aliases = [...routes.staticPaths().filter((path) => !routes.isCanonical(path)), ...bySlugRoute]
  t.ok(pages.length + 1 + aliases.length > 64, `${aliases.length} pages outside the sitemap: with the sitemap's and the 404 page, more than PAGE_CACHE_MAX_ENTRIES (64)`)
  const flood = Array.from({ length: 2100 }, (_, i) =>
    i % 3 === 0 ? `/?a=${i}` : i % 3 === 1 ? `/over-ons?utm_source=${i}` : i % 7 === 2 ? `/bestaat-niet-${i}` : `${aliases[Math.floor(i / 3) % aliases.length]}?n=${i}`,
  )
  const answers = await all(small, flood)
  t.notOk(answers.some((answer) => answer.status >= 500), 'the flood was served')
  await small.renderer.close()
  const after = await all(small, pages, 4)
  t.same(
    after.filter((answer) => answer.status !== 200 || (answer.cache !== 'HIT' && answer.cache !== 'STALE')).map((answer) => `${answer.status} ${answer.cache}`),
    [],
    'every sitemap page 200 from the page cache',
  )
})
