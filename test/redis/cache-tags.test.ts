import t from 'tap'
import { request } from 'undici'
import { queryCacheKey } from '../../shared/cache-key.ts'
import { DEFAULT_SITE_HANDLE, SITE_SETTINGS_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { createRouteTable } from '../../shared/routes.ts'
import { CHANNELS } from '../../shared/sections.ts'
import { shippedContent } from '../helpers/content.ts'
import { PAIR_PURGE_SECRET, nextEvent, startSharedPair, tierOf } from '../helpers/redis.ts'

const pair = await startSharedPair()
t.teardown(() => pair.close())

const get = async (base: string, path: string) => {
  const response = await request(`${base}${path}`)
  const text = await response.body.text()
  const header = (name: string) => String(response.headers[name] ?? '')
  return { status: response.statusCode, cache: header('x-cache'), cacheTag: header('cache-tag'), surrogateKey: header('surrogate-key'), text }
}
const tagsOf = (header: string, separator: string): string[] => header.split(separator).filter(Boolean).sort()

const content = shippedContent()
const routes = createRouteTable(DEFAULT_SITE_HANDLE)
const operations = createOperations(DEFAULT_SITE_HANDLE)

/** The tags of a section's entries, as the content holds them. */
const entryTagsOf = (section: string): string[] => content.findEntries({ section: [section] }, undefined).map((entry) => `entry:${entry.id}`)
/** A list of a section: its handle (a new entry changes it) and its entries' tags: what purges name. */
const sectionTags = (section: string): string[] => [section, ...entryTagsOf(section)]

/**
 * The queries a list page is built from (its route's loaders: the site's settings, its single, the list of
 * `listed`), each with its cache key and the tags its answer must have.
 */
function listPage(path: string, listed: string): { loader: string; key: string; tags: string[] }[] {
  const match = routes.match(path)
  const handle = match.kind === 'route' ? match.route.handle : undefined
  if (match.kind !== 'route' || !handle) throw new Error(`${path} is no list page`)
  const { route, params } = match
  // A single that was found is tagged with its entry only: another entry of its section changes nothing in it.
  const tags: Record<string, string[]> = { site: [SITE_SETTINGS_HANDLE], page: entryTagsOf(handle), [listed]: sectionTags(listed) }
  return route.loaders.map((loader) => ({
    loader: loader.key,
    key: queryCacheKey(operations[loader.operation], loader.variables({ site: routes.product, params, page: 1 })),
    tags: tags[loader.key] ?? [],
  }))
}
const JOBS = listPage('/werken-bij', CHANNELS.jobs.section)
const OFFICES = listPage('/kantoren', CHANNELS.establishments.section)
const tagsOfPage = (queries: typeof JOBS) => [...new Set(queries.flatMap((query) => query.tags))].sort()
const redisKey = (kind: 'q' | 't', name: string) => `${DEFAULT_SITE_HANDLE}:${kind}:${name}`

t.test('payloads carry the sections and entry ids they were built from', async (t) => {
  t.same(JOBS.map((query) => query.loader), ['site', 'page', 'jobs'], 'the jobs page: site settings, its single, the jobs')
  t.ok((JOBS[2]?.tags.length ?? 0) >= 3, 'the jobs list has entries')
  const payload = await get(pair.a.url, '/werken-bij/_payload.json')
  t.equal(payload.status, 200)
  t.equal(payload.cache, 'MISS')
  t.same(tagsOf(payload.cacheTag, ','), tagsOfPage(JOBS), 'Cache-Tag: the sections and entries the content shows on the page, nothing else')
  t.same(tagsOf(payload.surrogateKey, ' '), tagsOfPage(JOBS), 'Surrogate-Key lists the same tags')
  for (const query of JOBS) {
    t.equal(await pair.redis.client.exists(redisKey('q', query.key)), 1, `the ${query.loader} answer is stored in redis`)
    for (const tag of query.tags) t.ok((await pair.redis.client.smembers(redisKey('t', tag))).includes(query.key), `redis lists it under ${tag}`)
  }
  const fromRedis = await get(pair.b.url, '/werken-bij/_payload.json')
  t.equal(fromRedis.cache, 'HIT')
  t.equal(fromRedis.cacheTag, payload.cacheTag, 'the same tags from the shared tier')
  const missing = await get(pair.a.url, '/nergens/_payload.json')
  t.equal(missing.status, 404)
  t.equal(missing.cacheTag, '', 'a 404 (private) has none')
})

t.test('pages carry the tags of their payloads, fresh and from the page cache', async (t) => {
  const payload = await get(pair.a.url, '/werken-bij/_payload.json')
  const fresh = await get(pair.a.url, '/werken-bij')
  t.equal(fresh.cache, 'MISS')
  t.ok(tagsOf(fresh.cacheTag, ',').includes('jobs'), 'a fresh render has the tags of the data it has so far')
  const cached = await get(pair.a.url, '/werken-bij')
  t.equal(cached.cache, 'HIT')
  t.same(tagsOf(cached.cacheTag, ','), tagsOf(payload.cacheTag, ','), 'the stored page: the tags of its whole payload')
  t.same(tagsOf(cached.surrogateKey, ' '), tagsOf(payload.cacheTag, ','))
})

t.test('a tag purge drops the pages and entries with that tag, on both gateways, and keeps the rest', async (t) => {
  for (const system of [pair.a, pair.b]) {
    for (const path of ['/werken-bij', '/kantoren']) {
      await get(system.url, path)
      await get(system.url, path)
    }
  }
  const jobs = tagsOf((await get(pair.b.url, '/werken-bij')).cacheTag, ',')
  const offices = tagsOf((await get(pair.b.url, '/kantoren')).cacheTag, ',')
  const entry = jobs.find((tag) => tag.startsWith('entry:') && !offices.includes(tag))
  t.ok(entry, 'an entry of the jobs page that the offices page does not show')
  const heardOnB = nextEvent(tierOf(pair.b), 'purge', 'the purge reaching b')
  const response = await request(`${pair.a.url}/api/purge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-purge-secret': PAIR_PURGE_SECRET },
    body: JSON.stringify({ tags: [entry], hard: true }),
  })
  const answer = (await response.body.json()) as Record<string, unknown>
  t.equal(response.statusCode, 200)
  t.same(answer.tags, [entry])
  t.ok(Number(answer.pages) >= 1, 'a dropped the page')
  t.same(await heardOnB, [[entry]], 'b heard of the purge')
  t.equal(pair.b.gateway.pageCache.get('/werken-bij'), undefined, 'b dropped the page')
  for (const [page, queries] of [['jobs', JOBS], ['offices', OFFICES]] as const) {
    for (const query of queries) {
      const tagged = query.tags.includes(entry ?? '')
      t.equal(await pair.redis.client.exists(redisKey('q', query.key)), tagged ? 0 : 1, `redis ${tagged ? 'dropped' : 'kept'} the ${page} page's ${query.loader}`)
    }
  }
  t.equal(await pair.redis.client.exists(redisKey('t', entry ?? '')), 0, 'and the tag')
  for (const system of [pair.a, pair.b]) {
    t.ok(system.gateway.pageCache.get('/kantoren'), 'the offices page stays')
    t.equal((await get(system.url, '/kantoren/_payload.json')).cache, 'HIT', 'and its data')
  }
  t.equal((await get(pair.b.url, '/werken-bij')).cache, 'MISS', 'the jobs page is rendered again')
  const invalid = await request(`${pair.a.url}/api/purge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-purge-secret': PAIR_PURGE_SECRET },
    body: JSON.stringify({ tags: ['no spaces, please'] }),
  })
  await invalid.body.dump()
  t.equal(invalid.statusCode, 400)
})
