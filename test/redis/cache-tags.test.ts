import t from 'tap'
import { request } from 'undici'
import { PAIR_PURGE_SECRET, startSharedPair, within } from '../helpers/redis.ts'

const pair = await startSharedPair()
t.teardown(() => pair.close())

const get = async (base: string, path: string) => {
  const response = await request(`${base}${path}`)
  const text = await response.body.text()
  const header = (name: string) => String(response.headers[name] ?? '')
  return { status: response.statusCode, cache: header('x-cache'), cacheTag: header('cache-tag'), surrogateKey: header('surrogate-key'), text }
}
const tagsOf = (header: string, separator: string): string[] => header.split(separator).filter(Boolean).sort()

/** The sections and entry ids a payload's data shows, as the gateway should tag it. */
function expectedTags(payloadText: string): { sections: Set<string>; entries: Set<string> } {
  const sections = new Set<string>()
  const entries = new Set<string>()
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk)
    else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>
      if (typeof record.sectionHandle === 'string') {
        sections.add(record.sectionHandle)
        entries.add(`entry:${String(record.id)}`)
      }
      Object.values(record).forEach(walk)
    }
  }
  walk((JSON.parse(payloadText) as { data: unknown }).data)
  return { sections, entries }
}

t.test('payloads carry the sections and entry ids they were built from', async (t) => {
  const payload = await get(pair.a.url, '/werken-bij/_payload.json')
  t.equal(payload.status, 200)
  const tags = tagsOf(payload.cacheTag, ',')
  t.same(tagsOf(payload.surrogateKey, ' '), tags, 'Surrogate-Key lists the same tags')
  const { sections, entries } = expectedTags(payload.text)
  t.ok(entries.size >= 2, 'the jobs list has entries')
  for (const tag of [...sections, ...entries, 'jobs', 'siteSettings']) t.ok(tags.includes(tag), `tagged ${tag}`)
  t.ok(tags.every((tag) => tag.startsWith('entry:') ? entries.has(tag) : true), 'no entry that is not in the payload')
  t.equal((await get(pair.b.url, '/werken-bij/_payload.json')).cacheTag, payload.cacheTag, 'the same tags from the shared tier')
  const missing = await get(pair.a.url, '/nergens/_payload.json')
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
  t.ok(entry, 'a job entry that the offices page does not show')
  const response = await request(`${pair.a.url}/api/purge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-purge-secret': PAIR_PURGE_SECRET },
    body: JSON.stringify({ tags: [entry] }),
  })
  const answer = (await response.body.json()) as Record<string, unknown>
  t.equal(response.statusCode, 200)
  t.same(answer.tags, [entry])
  t.ok(Number(answer.pages) >= 1, 'a dropped the page')
  const took = await within(1000, () => pair.b.gateway.pageCache.get('/werken-bij') === undefined)
  t.ok(took !== undefined, `b dropped the page after ${Math.round(took ?? -1)} ms`)
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
