import t, { type Test } from 'tap'
import { request } from 'undici'
import { queryCacheKey } from '../../shared/cache-key.ts'
import { DEFAULT_SITE_HANDLE, SERVICES_PER_PAGE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { startSharedPair, tierOf } from '../helpers/redis.ts'
import type { System } from '../helpers/system.ts'
import { until } from '../helpers/until.ts'

const pair = await startSharedPair()
t.teardown(() => pair.close())
const operations = createOperations(DEFAULT_SITE_HANDLE)
// /services's first page of the list, as its route asks for it (shared/routes.ts: paged since the bounded pages).
const variables = { site: DEFAULT_SITE_HANDLE, limit: SERVICES_PER_PAGE, offset: 0 }

// Pages' data, not /api's: only the pages' cache is shared through Redis.
const payload = async (base: string, path: string) => {
  const response = await request(`${base}${path}/_payload.json`)
  return { status: response.statusCode, cache: response.headers['x-cache'], text: await response.body.text() }
}

/** What a gateway's shared tier says about the locks of keys while a test runs. */
function watchLocks(t: Test, system: System): { locked: string[]; waiting: string[] } {
  const tier = tierOf(system)
  const seen = { locked: [] as string[], waiting: [] as string[] }
  const locked = (key: string) => seen.locked.push(key)
  const waiting = (key: string) => seen.waiting.push(key)
  tier.on('locked', locked)
  tier.on('waiting', waiting)
  t.teardown(() => {
    tier.off('locked', locked)
    tier.off('waiting', waiting)
  })
  return seen
}

t.test('concurrent misses spread over both gateways make one CMS call', async (t) => {
  const systems = [pair.a, pair.b]
  // The site's settings and the sitemap (which decides unknown slugs) in both gateways' memory first: the job is then the one thing to fetch.
  for (const system of systems) {
    await payload(system.url, '/over-ons')
    await (await request(`${system.url}/sitemap.xml`)).body.dump()
  }
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  pair.upstream.behave = (call) => (call.operationName === 'JobBySlug' ? { kind: 'hold', until: gate } : { kind: 'pass' })
  t.teardown(() => {
    pair.upstream.behave = () => ({ kind: 'pass' })
    release()
  })
  const locks = systems.map((system) => watchLocks(t, system))
  const answers = Promise.all(Array.from({ length: 20 }, (_, i) => payload(systems[i % 2]?.url ?? '', '/jobs/allround-schadebehandelaar')))

  // Released only once each gateway has taken the lock or waits on it, the CMS holds the one call, and all 20 lookups wait on a flight
  // (or a second CMS call shows there is no single flight).
  const keyOf = () => locks.flatMap((seen) => [...seen.locked, ...seen.waiting])[0] ?? ''
  const lookupsWaiting = () => systems.map((system) => system.gateway.cache.waitingOn(keyOf()))
  const everyoneWaits = () =>
    pair.callsOf('JobBySlug') === 1 && locks.every((seen) => seen.locked.length + seen.waiting.length > 0) && lookupsWaiting().reduce((sum, n) => sum + n, 0) === 20
  await until(
    () => everyoneWaits() || pair.callsOf('JobBySlug') > 1,
    () => `every gateway on the lock, the CMS asked, 20 lookups waiting: ${JSON.stringify({ calls: pair.callsOf('JobBySlug'), locks, waiting: lookupsWaiting() })}`,
  )
  const key = keyOf()
  const holder = locks.findIndex((seen) => seen.locked.includes(key))
  const waiter = 1 - holder
  t.same(locks.map((seen) => seen.locked.length), holder === 0 ? [1, 0] : [0, 1], 'one gateway holds the lock')
  t.same(locks[waiter]?.waiting, [key], 'the other waits on it')
  t.same(lookupsWaiting(), [10, 10], 'every request on both gateways waits on its gateway\'s flight')
  t.equal(pair.callsOf('JobBySlug'), 1, 'one CMS call under way')

  release()
  const results = await answers
  t.equal(pair.callsOf('JobBySlug'), 1, 'exactly one CMS call for 20 requests on 2 gateways')
  t.ok(results.every((r) => r.status === 200 && r.text === results[0]?.text), 'everyone got the same answer')
  const cacheOn = (index: number) => [...new Set(results.filter((_, i) => i % 2 === index).map((r) => r.cache))]
  t.same(cacheOn(holder), ['MISS'], 'the lock holder\'s requests had the CMS answer')
  t.same(cacheOn(waiter), ['HIT'], 'the waiting gateway\'s took it from Redis')
  t.same(lookupsWaiting(), [0, 0], 'both flights are done')
})

t.test('a cold gateway takes what the other stored, without the CMS', async (t) => {
  const first = await payload(pair.a.url, '/jobs/adviseur-particuliere-verzekeringen')
  t.equal(first.cache, 'MISS')
  const calls = pair.callsOf('JobBySlug')
  const second = await payload(pair.b.url, '/jobs/adviseur-particuliere-verzekeringen')
  t.equal(second.cache, 'HIT', 'from the shared tier')
  t.equal(second.text, first.text)
  t.equal(pair.callsOf('JobBySlug'), calls, 'no second CMS call')
  const metrics = await (await request(`${pair.b.internalUrl}/metrics`)).body.text()
  t.match(metrics, /shared_cache_lookups_total\{result="hit"[^}]*\} [1-9]/, 'counted as a shared-tier hit')
  t.match(metrics, /redis_up\{[^}]*\} 1/)
})

t.test('a lock left by a dead gateway expires by itself', async (t) => {
  const key = queryCacheKey(operations.ServiceList, variables)
  await pair.redis.client.set(`${DEFAULT_SITE_HANDLE}:l:${key}`, 'Lgone-gateway', 'PX', 500)
  const steps: string[] = []
  const tier = tierOf(pair.b)
  const step = (name: string) => (lockKey: string) => {
    if (lockKey === key) steps.push(name)
  }
  const waited = step('waited on the lock')
  const took = step('took the lock')
  tier.on('waiting', waited)
  tier.on('locked', took)
  pair.upstream.behave = (call) => {
    if (call.operationName === 'ServiceList') steps.push('asked the CMS')
    return { kind: 'pass' }
  }
  t.teardown(() => {
    pair.upstream.behave = () => ({ kind: 'pass' })
    tier.off('waiting', waited)
    tier.off('locked', took)
  })
  const answer = await payload(pair.b.url, '/services')
  t.equal(answer.status, 200)
  t.same(steps, ['waited on the lock', 'took the lock', 'asked the CMS'], 'waited while the dead lock stood, took it once it expired, then asked the CMS')
  t.equal(pair.callsOf('ServiceList'), 1, 'asked the CMS once')
})
