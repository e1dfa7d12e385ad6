import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { DEFAULT_SITE_HANDLE, SITE_SETTINGS_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { purge as sendPurge } from '../helpers/http.ts'
import { ROOT } from '../helpers/processes.ts'
import { startSystem } from '../helpers/system.ts'

/** The shipped content with one more redirect entry in the CMS: a rule whose target is its own address (an editor's slip). */
function contentWithSelfRedirect(): string {
  const dir = mkdtempSync(join(tmpdir(), 'self-redirect-'))
  cpSync(loadGatewayConfig({}).contentDir, dir, { recursive: true })
  const file = join(dir, 'redirects.json')
  const content = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, unknown>[] }
  const [first] = content.entries
  content.entries.push({ ...first, id: '899', title: 'Privacy naar zichzelf', slug: 'privacy-zelf', fields: { redirectSrcUrl: '/privacy', redirectDestUrl: '/privacy', redirectHttpCode: 301 } })
  writeFileSync(file, JSON.stringify(content))
  return dir
}
const contentDir = contentWithSelfRedirect()
t.teardown(() => rmSync(contentDir, { recursive: true, force: true }))

const system = await startSystem({
  CONTENT_DIR: contentDir,
  PURGE_SECRET: 'webhook-secret',
  REDIRECTS: JSON.stringify([
    { from: '/oude-pagina', to: '/over-ons', statusCode: 301 },
    // A rule whose target is its own address (an editor's slip): a loop if followed.
    { from: '/disclaimer', to: '/disclaimer', statusCode: 301 },
  ]),
})
t.teardown(() => system.close())

const get = async (path: string, headers: Record<string, string> = {}) => {
  const response = await request(`${system.url}${path}`, { headers })
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() }
}
const purge = (body: unknown, secret?: string) => sendPurge(system.url, body, { secret })

t.test('builds/latest.json names the build, uncached', async (t) => {
  const latest = await get(`/builds/latest.json?${Date.now()}`)
  t.equal(latest.status, 200)
  t.equal(latest.headers['cache-control'], 'no-cache')
  const body = JSON.parse(latest.text) as { id: string; timestamp: number }
  t.type(body.id, 'string')
  t.ok(body.id.length > 0)
  t.type(body.timestamp, 'number')

  const meta = await get(`/builds/meta/${body.id}.json`)
  t.equal(meta.status, 200)
  const rules = JSON.parse(meta.text) as { id: string; matchers: { redirects: { from: string; to: string }[]; prerendered: string[] } }
  t.equal(rules.id, body.id)
  t.ok(rules.matchers.redirects.some((r) => r.from === '/oude-pagina' && r.to === '/over-ons'), 'configured redirect')
  t.ok(rules.matchers.redirects.some((r) => r.from === '/kifid' && r.to.startsWith('https://')), 'redirect from the CMS')
  t.same(rules.matchers.prerendered, [])
  const unknown = await get('/builds/meta/not-a-build.json')
  t.equal(unknown.status, 404)
  t.match(unknown.text, 'BUILD_NOT_FOUND')
})

t.test('redirect rules are honoured on page requests', async (t) => {
  const configured = await get('/oude-pagina')
  t.equal(configured.status, 301)
  t.equal(configured.headers.location, '/over-ons')
  const fromCms = await get('/schade')
  t.equal(fromCms.status, 301)
  t.equal(fromCms.headers.location, '/onze-dienstverlening/schade-melden')
  const external = await get('/kifid')
  t.equal(external.status, 302)
  t.equal(external.headers.location, 'https://www.kifid.nl/')
  const notARule = await get('/kifid?to=https://evil.example')
  t.equal(notARule.headers.location, 'https://www.kifid.nl/', 'the target never comes from the request')
})

t.test('a rule whose target is the address asked for is not followed: the page answers, not a loop', async (t) => {
  const itself = await get('/disclaimer')
  t.equal(itself.status, 200, 'the page, not a redirect to itself')
  t.equal(itself.headers.location, undefined)
  t.match(itself.text, '<h1', 'the page itself')
  const withQuery = await get('/disclaimer?ref=oud')
  t.same([withQuery.status, withQuery.headers.location], [200, undefined], 'a query the page does not read makes no other address: the page too')
  // The same from the CMS's rules, asked of it (the first visit) and then decided at once from its answer.
  for (const visit of ['asked of the CMS', 'decided at once']) {
    const fromCms = await get('/privacy')
    t.same([fromCms.status, fromCms.headers.location], [200, undefined], `a CMS rule to its own address, ${visit}: the page`)
  }
  t.equal((await get('/schade')).headers.location, '/onze-dienstverlening/schade-melden', "the CMS's other rules still apply")
})

/** Payloads and pages the purge tests fill the caches with: jobs (the section purged) and others. */
const JOB_PAYLOADS = ['/werken-bij/_payload.json']
const OTHER_PAYLOADS = ['/kantoren/_payload.json', '/actueel/_payload.json', '/over-ons/_payload.json']
// `/jobs` and `/about` (aliases, not in the sitemap) are kept apart from the sitemap's pages (page-cache.ts): both kinds.
const JOB_PAGES = ['/werken-bij', '/jobs']
const OTHER_PAGES = ['/kantoren', '/actueel', '/over-ons', '/', '/about']
const JOB_ADDRESSES = [...JOB_PAYLOADS, ...JOB_PAGES]
const OTHER_ADDRESSES = [...OTHER_PAYLOADS, ...OTHER_PAGES]
/** Payloads first: a page rendered again stores its payload again. */
const ALL_ADDRESSES = [...JOB_PAYLOADS, ...OTHER_PAYLOADS, ...JOB_PAGES, ...OTHER_PAGES]

/** X-Cache of each address, asked once each in turn. */
async function cacheStates(addresses: readonly string[]): Promise<Record<string, string>> {
  const states: Record<string, string> = {}
  for (const address of addresses) states[address] = String((await get(address)).headers['x-cache'])
  return states
}

const every = (addresses: readonly string[], state: string): Record<string, string> => Object.fromEntries(addresses.map((address) => [address, state]))

t.test('page cache: the second request is a hit; purge makes it a miss', async (t) => {
  const first = await get('/kantoren')
  const second = await get('/kantoren')
  t.equal(first.status, 200)
  t.equal(second.headers['x-cache'], 'HIT')
  t.equal(second.text, first.text.replace(/ nonce="[^"]*"/g, ''), 'the same page, less the first answer\'s nonces')
  t.notMatch(second.headers['content-security-policy'], /nonce-/, 'a cached page allows its inline scripts by hash')
  const all = ALL_ADDRESSES
  await cacheStates(all)
  t.same(await cacheStates(all), every(all, 'HIT'), 'every page and payload stored')
  const answer = await purge({ hard: true }, 'webhook-secret')
  t.equal(answer.status, 200)
  t.ok(answer.json.purged > 0)
  t.same(await cacheStates(all), every(all, 'MISS'), 'a whole purge drops every page and payload, not some')
})

t.test('purge by section only drops that section\'s entries, pages and payloads alike', async (t) => {
  const all = ALL_ADDRESSES
  await cacheStates(all)
  t.same(await cacheStates(all), every(all, 'HIT'), 'every page and payload stored')
  const sizeBefore = system.gateway.cache.size
  const answer = await purge({ sections: ['jobs'], hard: true }, 'webhook-secret')
  t.equal(answer.status, 200)
  t.ok(answer.json.purged >= 1, 'the jobs entries went')
  t.ok(system.gateway.cache.size > 0 && system.gateway.cache.size < sizeBefore, 'the others stayed')
  // Without Redis: the gateway's own page cache decides, by the tags each page was stored with.
  t.same(await cacheStates(all), { ...every(JOB_ADDRESSES, 'MISS'), ...every(OTHER_ADDRESSES, 'HIT') }, 'the jobs pages and payloads fetched again, every other one still stored')
})

t.test('purge by section reaches the global set: siteSettings drops navigation and footer', async (t) => {
  const operations = createOperations(DEFAULT_SITE_HANDLE)
  const api = async (query: string) => {
    const response = await request(`${system.url}/api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables: { site: DEFAULT_SITE_HANDLE } }),
    })
    await response.body.dump()
    return response.headers['x-cache']
  }
  await api(operations.SiteSettings)
  await api(operations.EstablishmentList)
  t.equal(await api(operations.SiteSettings), 'HIT')
  const answer = await purge({ sections: [SITE_SETTINGS_HANDLE], hard: true }, 'webhook-secret')
  t.equal(answer.status, 200)
  t.ok(answer.json.purged >= 1, 'the global set\'s entries went')
  t.equal(await api(operations.SiteSettings), 'MISS', 'navigation and footer are fetched again')
  t.equal(await api(operations.EstablishmentList), 'HIT', 'other sections stayed')
})

t.test('purge needs the secret', async (t) => {
  const none = await purge({})
  t.equal(none.status, 401)
  const wrong = await purge({}, 'guess')
  t.equal(wrong.status, 401)
  const bad = await purge({ sections: 'jobs' }, 'webhook-secret')
  t.equal(bad.status, 400)
})

t.test('without PURGE_SECRET there is no purge endpoint', async (t) => {
  const other = await startSystem()
  t.teardown(() => other.close())
  const response = await request(`${other.url}/api/purge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  await response.body.dump()
  t.equal(response.statusCode, 404)
})

t.test('the browser bundle is content-hashed and cached for a year', async (t) => {
  const page = await get('/')
  const entry = /<script type="module" src="(\/assets\/app-[A-Za-z0-9]+\.js)"/.exec(page.text)?.[1]
  t.ok(entry, 'the page loads the hashed entry module')
  const script = await get(entry ?? '/assets/missing.js')
  t.equal(script.status, 200)
  t.equal(script.headers['cache-control'], 'public, max-age=31536000, immutable')
  t.match(String(script.headers['content-type']), /javascript/)
  // Pages carry the stylesheet inline; its hashed file is still served, for anything else that links it.
  const build = JSON.parse(readFileSync(join(ROOT, 'dist/build.json'), 'utf8')) as { assets: { stylesheet: string } }
  t.match(build.assets.stylesheet, /^\/assets\/styles-[a-f0-9]+\.css$/)
  const css = await get(build.assets.stylesheet)
  t.equal(css.status, 200)
  t.equal(css.headers['cache-control'], 'public, max-age=31536000, immutable')
})

t.test('brotli and gzip for pages, payloads and the bundle (precompressed)', async (t) => {
  for (const encoding of ['br', 'gzip']) {
    for (const path of ['/over-ons', '/over-ons/_payload.json', '/sitemap-pages-1.xml']) {
      const response = await request(`${system.url}${path}`, { headers: { 'accept-encoding': encoding } })
      await response.body.dump()
      t.equal(response.headers['content-encoding'], encoding, `${path} in ${encoding}`)
      // A page this stored has its variants encoded off the event loop: made before the next request serves it from the cache.
      await system.gateway.pageCache.idle()
    }
  }
  const page = await get('/')
  const entry = /<script type="module" src="(\/assets\/app-[A-Za-z0-9]+\.js)"/.exec(page.text)?.[1] ?? ''
  const script = await request(`${system.url}${entry}`, { headers: { 'accept-encoding': 'br' } })
  const bytes = Buffer.from(await script.body.arrayBuffer())
  t.equal(script.headers['content-encoding'], 'br')
  t.ok(bytes.length < 120_000, `the entry is served brotli-compressed (${bytes.length} bytes)`)
})

t.test('CDN caching headers: s-maxage and stale-while-revalidate, ETag and 304; errors private', async (t) => {
  const fresh = await get('/kantoren')
  if (fresh.headers['x-cache'] === 'MISS') t.equal(fresh.headers['cache-control'], 'private, no-cache', 'a fresh render carries a nonce: private')
  const page = await get('/kantoren')
  t.equal(page.headers['x-cache'], 'HIT')
  t.match(String(page.headers['cache-control']), /^public, max-age=0, s-maxage=\d+, stale-while-revalidate=\d+$/, 'the cached page (hashes, no nonce) is public')
  const etag = String(page.headers.etag)
  t.match(etag, /^W\/"/, 'a cached page has an ETag')
  const again = await get('/kantoren', { 'if-none-match': etag })
  t.equal(again.status, 304, '304 when the client has it')
  t.equal(again.text, '')
  const payload = await get('/kantoren/_payload.json')
  t.match(String(payload.headers['cache-control']), /s-maxage=\d+, stale-while-revalidate=\d+/)
  const payloadAgain = await get('/kantoren/_payload.json', { 'if-none-match': String(payload.headers.etag) })
  t.equal(payloadAgain.status, 304)
  const missing = await get('/nergens-te-vinden')
  t.equal(missing.headers['cache-control'], 'private, no-store')
  t.notOk(missing.headers.etag)
})
