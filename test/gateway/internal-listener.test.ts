import t from 'tap'
import { request } from 'undici'
import { startFaultUpstream } from '../helpers/fault-upstream.ts'
import { within } from '../helpers/redis.ts'
import { startSystem } from '../helpers/system.ts'

const upstream = await startFaultUpstream()
t.teardown(() => upstream.close())
// Craft's `{ ping }` is the one call sent without an operation name.
const pings = () => upstream.calls.filter((call) => call.operationName === undefined).length

const get = async (url: string, method: 'GET' | 'HEAD' = 'GET') => {
  const response = await request(url, { method })
  return { status: response.statusCode, type: String(response.headers['content-type']), body: await response.body.text() }
}

t.test('the public port: a static /healthz; /readyz and /metrics are unknown and cost no CMS call', async (t) => {
  const system = await startSystem({ CRAFT_API_URL: upstream.url })
  t.teardown(() => system.close())
  const calls = upstream.calls.length
  t.same(JSON.parse((await get(`${system.url}/healthz`)).body), { status: 'ok' })
  for (const path of ['/readyz', '/metrics', '/readyz?x=1']) {
    const answer = await get(`${system.url}${path}`)
    t.equal(answer.status, 404, `${path}: 404`)
    t.notMatch(answer.body, /ready|upstream|nodejs_|process_|http_requests_total/, `${path}: tells nothing`)
  }
  t.equal((await get(`${system.url}/metrics`, 'HEAD')).status, 404, 'HEAD too')
  t.equal(upstream.calls.length, calls, 'the CMS was not asked')
})

t.test('the internal listener serves /healthz, /readyz and the gateway\'s /metrics', async (t) => {
  const system = await startSystem({ CRAFT_API_URL: upstream.url })
  t.teardown(() => system.close())
  t.not(system.internalUrl, system.url)
  t.same(JSON.parse((await get(`${system.internalUrl}/healthz`)).body), { status: 'ok' })
  const ready = await get(`${system.internalUrl}/readyz`)
  t.equal(ready.status, 200)
  t.same(JSON.parse(ready.body).checks, { renderer: 'ok', upstream: 'ok', schema: 'ok' })
  await get(`${system.url}/over-ons`)
  const metrics = await get(`${system.internalUrl}/metrics`)
  t.match(metrics.type, /text\/plain/)
  t.match(metrics.body, /http_requests_total\{route="\/\*",method="GET",status="200",service="gateway"\} [1-9]/, "the public port's requests")
  t.match(metrics.body, /upstream_request_duration_seconds_count/)
  t.equal((await get(`${system.internalUrl}/over-ons`)).status, 404, 'no pages on the internal listener')
})

t.test('300 probes at once and 300 one after another within the interval: one CMS call', async (t) => {
  const system = await startSystem({ CRAFT_API_URL: upstream.url, READINESS_CACHE_MS: '60000' })
  t.teardown(() => system.close())
  const before = pings()
  const together = await Promise.all(Array.from({ length: 300 }, () => get(`${system.internalUrl}/readyz`)))
  const statuses = new Set(together.map((answer) => answer.status))
  for (let i = 0; i < 300; i++) statuses.add((await get(`${system.internalUrl}/readyz`)).status)
  t.same([...statuses], [200], 'every probe answered ready')
  t.equal(pings() - before, 1, 'exactly one CMS call for 600 probes')
})

t.test('after the interval a probe asks the CMS again, and reports what it found', async (t) => {
  const system = await startSystem({ CRAFT_API_URL: upstream.url, READINESS_CACHE_MS: '50' })
  t.teardown(() => {
    upstream.behave = () => ({ kind: 'pass' })
    return system.close()
  })
  const before = pings()
  t.equal((await get(`${system.internalUrl}/readyz`)).status, 200)
  t.equal(pings() - before, 1)
  upstream.behave = (call) => (call.operationName === undefined ? { kind: 'answer', status: 503, body: 'down' } : { kind: 'pass' })
  let last = { status: 0, type: '', body: '' }
  const waited = await within(5000, async () => (last = await get(`${system.internalUrl}/readyz`)).status === 503)
  t.ok(waited !== undefined, 'not ready once the CMS fails')
  t.equal(JSON.parse(last.body).checks.upstream, 'unreachable')
  t.equal(pings() - before, 2, 'asked once more, not once per probe')
})

t.test('a draining gateway says so on /readyz without a check; closing the gateway closes the internal listener', async (t) => {
  const system = await startSystem({ CRAFT_API_URL: upstream.url })
  const before = pings()
  system.gateway.drain.draining = true
  const draining = await get(`${system.internalUrl}/readyz`)
  t.equal(draining.status, 503)
  t.same(JSON.parse(draining.body), { status: 'draining' })
  t.equal(pings(), before, 'no CMS call')
  await system.close()
  await t.rejects(request(`${system.internalUrl}/healthz`), { code: 'ECONNREFUSED' })
})
