import t from 'tap'
import { request } from 'undici'
import { keyMemoBytes } from '../../shared/cache-key.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { startFaultUpstream } from '../helpers/fault-upstream.ts'
import { get as getUrl, purge as sendPurge } from '../helpers/http.ts'
import { startSystem } from '../helpers/system.ts'

const API_CACHE_MAX_ENTRIES = 5
const operations = createOperations(DEFAULT_SITE_HANDLE)
const upstream = await startFaultUpstream()
// Both query caches far smaller than /api traffic can fill: /api answers would push the pages' out if they shared one.
const system = await startSystem({
  CRAFT_API_URL: upstream.url,
  CACHE_MAX_ENTRIES: '10',
  API_CACHE_MAX_ENTRIES: String(API_CACHE_MAX_ENTRIES),
  API_CACHE_MAX_BYTES: '4096',
  PURGE_SECRET: 'webhook-secret',
})
t.teardown(async () => {
  await system.close()
  await upstream.close()
})

const post = async (body: string) => {
  const response = await request(`${system.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: response.statusCode, cache: response.headers['x-cache'], json: (await response.body.json()) as Record<string, any> }
}
const api = (query: string, variables: unknown) => post(JSON.stringify({ query, variables }))
const get = (path: string) => getUrl(`${system.url}${path}`)
const jobBySlug = (slug: string) => api(operations.JobBySlug, { slug, site: DEFAULT_SITE_HANDLE })

/** What the gateway holds and asks, to compare before and after a refused request. */
const footprint = () => ({ calls: upstream.calls.length, pages: system.gateway.cache.size, api: system.gateway.apiCache.size, memo: keyMemoBytes() })

t.test('a variable the operation does not declare: 400 before anything is hashed, cached or asked', async (t) => {
  await jobBySlug('warm-up')
  const before = footprint()
  for (let i = 0; i < 20; i++) {
    const padded = await api(operations.JobList, { site: DEFAULT_SITE_HANDLE, padding: `${i}${'x'.repeat(60_000)}` })
    t.equal(padded.status, 400)
    t.equal(padded.json.errors[0].extensions.code, 'VARIABLE_NOT_DECLARED')
  }
  const longName = await api(operations.JobList, { site: DEFAULT_SITE_HANDLE, [`v${'y'.repeat(60_000)}`]: 1 })
  t.equal(longName.status, 400)
  t.ok(longName.json.errors[0].message.length < 200, 'the refused name is not echoed whole')
  t.same(footprint(), before, 'no CMS call, no cache entry, no memo entry')
})

t.test('variables nested 5,000 deep or larger than 4 KiB: 400, never 500', async (t) => {
  const before = footprint()
  // Written by hand: JSON.stringify itself overflows the stack on such a value.
  const nested = `${'['.repeat(5000)}"x"${']'.repeat(5000)}`
  const deep = await post(`{"query":${JSON.stringify(operations.JobBySlug)},"variables":{"site":"${DEFAULT_SITE_HANDLE}","slug":${nested}}}`)
  t.equal(deep.status, 400)
  t.equal(deep.json.errors[0].extensions.code, 'VARIABLES_TOO_DEEP')
  const large = await jobBySlug('x'.repeat(5000))
  t.equal(large.status, 400)
  t.equal(large.json.errors[0].extensions.code, 'VARIABLES_TOO_LARGE')
  t.same(footprint(), before, 'no CMS call, nothing cached')
})

t.test('callers of /api cannot push the pages\' data out of the cache', async (t) => {
  await get('/kantoren/_payload.json')
  t.equal((await get('/kantoren/_payload.json')).cache, 'HIT', 'the page\'s data is cached')
  const pagesBefore = system.gateway.cache.size
  for (let i = 0; i < 8 * API_CACHE_MAX_ENTRIES; i++) {
    const answer = await jobBySlug(`geen-vacature-${i}`)
    t.equal(answer.status, 200)
    t.equal(answer.cache, 'MISS')
  }
  t.ok(system.gateway.apiCache.size <= API_CACHE_MAX_ENTRIES, `/api answers within their own bound (${system.gateway.apiCache.size})`)
  t.equal(system.gateway.cache.size, pagesBefore, 'none of them in the pages\' cache')
  t.equal((await get('/kantoren/_payload.json')).cache, 'HIT', 'the page\'s data is still there')
})

t.test('an /api request the pages\' cache holds fresh is a hit from there, and stores nothing', async (t) => {
  await get('/kantoren/_payload.json')
  system.gateway.apiCache.purge()
  const calls = upstream.calls.length
  const answer = await api(operations.EstablishmentList, { site: DEFAULT_SITE_HANDLE })
  t.equal(answer.status, 200)
  t.equal(answer.cache, 'HIT')
  t.ok(answer.json.data.entries.length > 0)
  t.equal(upstream.calls.length, calls, 'no CMS call')
  t.equal(system.gateway.apiCache.size, 0, 'nothing stored for /api')
})

t.test('a purge empties the /api cache too', async (t) => {
  const purge = async (body: unknown) => {
    const answer = await sendPurge(system.url, body, { secret: 'webhook-secret' })
    t.equal(answer.status, 200)
    return answer.json as { purged: number }
  }
  await jobBySlug('geen-vacature-a')
  t.equal((await jobBySlug('geen-vacature-a')).cache, 'HIT', 'cached for /api')
  t.ok((await purge({ sections: ['jobs'], hard: true })).purged >= 1, 'by section')
  t.equal((await jobBySlug('geen-vacature-a')).cache, 'MISS', 'gone with its section')
  t.ok(system.gateway.apiCache.size > 0)
  await purge({ hard: true })
  t.equal(system.gateway.apiCache.size, 0, 'everything went')
  t.equal((await jobBySlug('geen-vacature-a')).cache, 'MISS')
})
