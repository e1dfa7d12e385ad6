import t from 'tap'
import { request } from 'undici'
import { queryCacheKey } from '../../shared/cache-key.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { startSharedPair } from '../helpers/redis.ts'

const pair = await startSharedPair()
t.teardown(() => pair.close())
const operations = createOperations(DEFAULT_SITE_HANDLE)
const variables = { site: DEFAULT_SITE_HANDLE }

// Pages' data, not /api's: only the pages' cache is shared through Redis.
const payload = async (base: string, path: string) => {
  const response = await request(`${base}${path}/_payload.json`)
  return { status: response.statusCode, cache: response.headers['x-cache'], text: await response.body.text() }
}

t.test('concurrent misses spread over both gateways make one CMS call', async (t) => {
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  // The site's settings in both gateways' memory first: the job is then the one thing to fetch.
  await payload(pair.a.url, '/over-ons')
  await payload(pair.b.url, '/over-ons')
  pair.upstream.behave = (call) => (call.operationName === 'JobBySlug' ? { kind: 'hold', until: gate } : { kind: 'pass' })
  t.teardown(() => {
    pair.upstream.behave = () => ({ kind: 'pass' })
  })
  const answers = Promise.all(Array.from({ length: 20 }, (_, i) => payload(i % 2 === 0 ? pair.a.url : pair.b.url, '/jobs/allround-schadebehandelaar')))
  t.ok(await waitFor(() => pair.callsOf('JobBySlug') === 1), 'one gateway asked the CMS')
  // Long enough for every request on both gateways to be waiting.
  await new Promise((resolve) => setTimeout(resolve, 200))
  release()
  const results = await answers
  t.equal(pair.callsOf('JobBySlug'), 1, 'exactly one CMS call for 20 requests on 2 gateways')
  t.ok(results.every((r) => r.status === 200 && r.text === results[0]?.text), 'everyone got the same answer')
  t.ok(results.some((r) => r.cache === 'MISS') && results.some((r) => r.cache === 'HIT'), 'the lock holder missed, the other gateway took its answer from Redis')
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
  const started = performance.now()
  const answer = await payload(pair.b.url, '/services')
  const took = performance.now() - started
  t.equal(answer.status, 200)
  t.equal(pair.callsOf('ServiceList'), 1, 'asked the CMS once the lock was gone')
  t.ok(took >= 400 && took < 3000, `waited for the lock to expire (${Math.round(took)} ms)`)
})

async function waitFor(check: () => boolean, ms = 3000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (check()) return true
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return check()
}
