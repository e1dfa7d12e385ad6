import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { startFaultUpstream } from '../helpers/fault-upstream.ts'
import { startSystem } from '../helpers/system.ts'

const operations = createOperations(DEFAULT_SITE_HANDLE)
const body = JSON.stringify({ query: operations.EstablishmentList, variables: { site: DEFAULT_SITE_HANDLE } })

function gate(): { until: Promise<void>; open: () => void } {
  let open!: () => void
  const until = new Promise<void>((resolve) => (open = resolve))
  return { until, open }
}

t.test('single flight over the wire: 100 concurrent identical misses, 1 upstream call', async (t) => {
  const upstream = await startFaultUpstream()
  const system = await startSystem({ CRAFT_API_URL: upstream.url })
  t.teardown(async () => {
    await system.close()
    await upstream.close()
  })
  const held = gate()
  upstream.behave = (call) => (call.operationName === 'EstablishmentList' ? { kind: 'hold', until: held.until } : { kind: 'pass' })
  const answers = Array.from({ length: 100 }, () =>
    request(`${system.url}/api`, { method: 'POST', body, headers: { 'content-type': 'application/json' } }).then(async (r) => ({
      status: r.statusCode,
      cache: r.headers['x-cache'],
      text: await r.body.text(),
    })),
  )
  while (!upstream.calls.some((call) => call.operationName === 'EstablishmentList')) await new Promise((r) => setTimeout(r, 10))
  await new Promise((r) => setTimeout(r, 100))
  held.open()
  const results = await Promise.all(answers)
  t.equal(upstream.calls.filter((call) => call.operationName === 'EstablishmentList').length, 1, 'one upstream request')
  t.ok(results.every((r) => r.status === 200), 'all answered')
  t.equal(new Set(results.map((r) => r.text)).size, 1, 'all the same answer')
})

t.test('stale-while-revalidate over the wire: stale at once, one refresh per key', async (t) => {
  const upstream = await startFaultUpstream()
  const system = await startSystem({ CRAFT_API_URL: upstream.url, CACHE_TTL_MS: '0', CACHE_SWR_MS: '600000' })
  t.teardown(async () => {
    await system.close()
    await upstream.close()
  })
  const post = () =>
    request(`${system.url}/api`, { method: 'POST', body, headers: { 'content-type': 'application/json' } }).then(async (r) => ({
      cache: r.headers['x-cache'],
      status: r.statusCode,
      text: await r.body.text(),
    }))
  const first = await post()
  t.equal(first.cache, 'MISS')
  const held = gate()
  upstream.behave = (call) => (call.operationName === 'EstablishmentList' ? { kind: 'hold', until: held.until } : { kind: 'pass' })
  const before = upstream.calls.length
  const stale = await Promise.all(Array.from({ length: 20 }, post))
  t.ok(stale.every((r) => r.cache === 'STALE' && r.status === 200 && r.text === first.text), 'all served stale at once, while the refresh is held')
  t.equal(upstream.calls.length - before, 1, 'one background refresh')
  held.open()
})

t.test('stale-if-error over the wire: an error status or a dropped connection gets the last good answer', async (t) => {
  const upstream = await startFaultUpstream()
  const system = await startSystem({ CRAFT_API_URL: upstream.url, CACHE_TTL_MS: '0', CACHE_SWR_MS: '0' })
  t.teardown(async () => {
    await system.close()
    await upstream.close()
  })
  const post = () =>
    request(`${system.url}/api`, { method: 'POST', body, headers: { 'content-type': 'application/json' } }).then(async (r) => ({
      cache: r.headers['x-cache'],
      status: r.statusCode,
      text: await r.body.text(),
    }))
  const first = await post()
  t.equal(first.cache, 'MISS')
  t.equal(first.status, 200)

  upstream.behave = () => ({ kind: 'answer', status: 503, body: JSON.stringify({ errors: [{ message: 'Service unavailable' }] }) })
  const afterErrorStatus = await post()
  t.same(afterErrorStatus, { cache: 'STALE', status: 200, text: first.text }, '503 with errors: the stale answer instead')

  upstream.behave = () => ({ kind: 'destroy' })
  const afterDrop = await post()
  t.same(afterDrop, { cache: 'STALE', status: 200, text: first.text }, 'connection dropped: the stale answer instead')

  upstream.behave = () => ({ kind: 'pass' })
  t.equal((await post()).cache, 'MISS', 'a healthy upstream is asked again')
})
