import t from 'tap'
import { QueryCache } from '../../gateway/cache/query-cache.ts'
import type { UpstreamAnswer } from '../../gateway/craft/client.ts'

const answer = (value: string, extra: Partial<UpstreamAnswer> = {}): UpstreamAnswer => {
  const body = { data: { value } }
  return { status: 200, body, raw: Buffer.from(JSON.stringify(body)), ...extra }
}
const policy = { storable: (a: UpstreamAnswer) => a.status === 200 && !a.body.errors, sections: () => ['jobs'] }

function cacheWithClock(options: Partial<ConstructorParameters<typeof QueryCache>[0]> = {}) {
  let now = 1_000_000
  const cache = new QueryCache({
    maxEntries: 100,
    maxBytes: 1_000_000,
    ttlMs: 1000,
    staleWhileRevalidateMs: 5000,
    staleIfErrorMs: 60_000,
    now: () => now,
    ...options,
  })
  return { cache, advance: (ms: number) => (now += ms) }
}

t.test('miss, then hit', async (t) => {
  const { cache } = cacheWithClock()
  let calls = 0
  const load = async () => answer(`v${++calls}`)
  t.equal((await cache.fetch('k', load, policy)).status, 'MISS')
  const second = await cache.fetch('k', load, policy)
  t.equal(second.status, 'HIT')
  t.same(second.answer.body.data, { value: 'v1' })
  t.equal(calls, 1)
})

t.test('single flight: 100 concurrent identical misses, 1 upstream call', async (t) => {
  const { cache } = cacheWithClock()
  let calls = 0
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const load = async () => {
    calls++
    await gate
    return answer('shared')
  }
  const all = Promise.all(Array.from({ length: 100 }, () => cache.fetch('k', load, policy)))
  release()
  const results = await all
  t.equal(calls, 1)
  t.ok(results.every((r) => r.answer.body.data?.value === 'shared'))
})

t.test('stale-while-revalidate: stale at once, one refresh per key', async (t) => {
  const { cache, advance } = cacheWithClock()
  let calls = 0
  let release!: () => void
  let gate = Promise.resolve()
  const load = async () => {
    calls++
    await gate
    return answer(`v${calls}`)
  }
  await cache.fetch('k', load, policy)
  advance(2000)
  gate = new Promise<void>((resolve) => (release = resolve))
  const stale = await Promise.all(Array.from({ length: 20 }, () => cache.fetch('k', load, policy)))
  t.ok(stale.every((r) => r.status === 'STALE' && r.answer.body.data?.value === 'v1'), 'all served stale at once')
  t.equal(calls, 2, 'one background refresh')
  release()
  await new Promise((resolve) => setImmediate(resolve))
  const fresh = await cache.fetch('k', load, policy)
  t.equal(fresh.status, 'HIT')
  t.equal(fresh.answer.body.data?.value, 'v2')
})

t.test('stale-if-error: the upstream fails, the stale entry stands in', async (t) => {
  const { cache, advance } = cacheWithClock()
  await cache.fetch('k', async () => answer('old'), policy)
  advance(10_000)
  const result = await cache.fetch('k', async () => Promise.reject(new Error('down')), policy)
  t.equal(result.status, 'STALE')
  t.equal(result.answer.body.data?.value, 'old')
  advance(100_000)
  await t.rejects(cache.fetch('k', async () => Promise.reject(new Error('down')), policy), /down/, 'not beyond the window')
})

t.test('never stored: errors and non-2xx', async (t) => {
  const { cache } = cacheWithClock()
  const withErrors = answer('x', { body: { data: null, errors: [{ message: 'bad' }] } })
  await cache.fetch('e', async () => withErrors, policy)
  t.equal(cache.size, 0)
  await cache.fetch('s', async () => answer('x', { status: 500 }), policy)
  t.equal(cache.size, 0)
  t.equal((await cache.fetch('s', async () => answer('y'), policy)).status, 'MISS')
})

t.test('purge all and by section', async (t) => {
  const { cache } = cacheWithClock()
  await cache.fetch('a', async () => answer('a'), { ...policy, sections: () => ['jobs'] })
  await cache.fetch('b', async () => answer('b'), { ...policy, sections: () => ['topical'] })
  t.equal(cache.purge(['jobs']), 1)
  t.equal((await cache.fetch('a', async () => answer('a2'), policy)).status, 'MISS')
  t.equal((await cache.fetch('b', async () => answer('b2'), policy)).status, 'HIT')
  cache.purge()
  t.equal(cache.size, 0)
})

t.test('a soft purge marks the answers of its tags: asked again before use, the old one standing in only while the CMS fails', async (t) => {
  const { cache } = cacheWithClock()
  const jobs = { ...policy, sections: () => ['jobs'] }
  const topical = { ...policy, sections: () => ['topical'] }
  await cache.fetch('a', async () => answer('a'), jobs)
  await cache.fetch('b', async () => answer('b'), topical)
  const stored = cache.peek('a')
  t.equal(cache.purge(['jobs'], true), 1, 'the answer of the tag is marked')
  t.equal(cache.purge(['jobs'], true), 0, 'one marked already is not counted again')
  t.equal(cache.size, 2, 'kept: it may have to stand in')
  t.notOk(cache.holdsFresh('a', stored), 'no longer fresh')
  t.equal(cache.fresh('a'), undefined)
  t.equal(cache.fresh('b')?.status, 'HIT', 'another tag untouched')
  const down = await cache.fetch('a', async () => Promise.reject(new Error('down')), jobs)
  t.same([down.status, down.answer.body.data?.value], ['STALE', 'a'], 'the CMS down: the old answer stands in')
  const again = await cache.fetch('a', async () => answer('a2'), jobs)
  t.same([again.status, again.answer.body.data?.value], ['MISS', 'a2'], 'the CMS up: asked again, the new answer')
  t.equal((await cache.fetch('a', async () => answer('a3'), jobs)).status, 'HIT', 'and that one is fresh')
  t.equal(cache.purge(undefined, true), 2, 'a soft purge of everything marks every answer')
  t.equal((await cache.fetch('b', async () => answer('b2'), topical)).status, 'MISS')
})

t.test('a flight that started before a purge does not store old content', async (t) => {
  const { cache } = cacheWithClock()
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const pending = cache.fetch('k', async () => {
    await gate
    return answer('old')
  }, policy)
  cache.purge()
  release()
  await pending
  t.equal(cache.size, 0)
})

t.test('bounded by entries and bytes', async (t) => {
  const { cache } = cacheWithClock({ maxEntries: 50, maxBytes: 1_000_000 })
  let largest = 0
  for (let i = 0; i < 500; i++) {
    await cache.fetch(`k${i}`, async () => answer(`value-${Math.random()}`), policy)
    largest = Math.max(largest, cache.size)
  }
  t.equal(largest, 50, 'never above the entry limit')
  const small = cacheWithClock({ maxEntries: 1000, maxBytes: 2000 }).cache
  for (let i = 0; i < 200; i++) await small.fetch(`k${i}`, async () => answer('x'.repeat(100)), policy)
  t.ok(small.bytes <= 2000, `bytes stay under the limit (${small.bytes})`)
})
