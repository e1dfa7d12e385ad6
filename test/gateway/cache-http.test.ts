import t from 'tap'
import { request } from 'undici'
import { queryCacheKey } from '../../shared/cache-key.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { startFaultySystem } from '../helpers/fault-upstream.ts'
import type { System } from '../helpers/system.ts'
import { until } from '../helpers/until.ts'

const operations = createOperations(DEFAULT_SITE_HANDLE)
const body = JSON.stringify({ query: operations.EstablishmentList, variables: { site: DEFAULT_SITE_HANDLE } })

/** Sends the document to the system's /api: the answer's cache status, status and text. */
const poster = (system: System) => () =>
  request(`${system.url}/api`, { method: 'POST', body, headers: { 'content-type': 'application/json' } }).then(async (r) => ({
    cache: r.headers['x-cache'],
    status: r.statusCode,
    text: await r.body.text(),
  }))

function gate(): { until: Promise<void>; open: () => void } {
  let open!: () => void
  const until = new Promise<void>((resolve) => (open = resolve))
  return { until, open }
}

t.test('single flight over the wire: 100 concurrent identical misses, 1 upstream call', { timeout: 30_000 }, async (t) => {
  const { system, upstream } = await startFaultySystem(t)
  const held = gate()
  upstream.behave = (call) => (call.operationName === 'EstablishmentList' ? { kind: 'hold', until: held.until } : { kind: 'pass' })
  const upstreamCalls = () => upstream.calls.filter((call) => call.operationName === 'EstablishmentList').length
  const key = queryCacheKey(operations.EstablishmentList, { site: DEFAULT_SITE_HANDLE })
  let answered = 0
  const answers = Array.from({ length: 100 }, () =>
    request(`${system.url}/api`, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
      .then(async (r) => ({
        status: r.statusCode,
        cache: r.headers['x-cache'],
        text: await r.body.text(),
      }))
      .finally(() => answered++),
  )
  // Released once every request waits on the one flight; a second upstream call or an early answer shows they do not, and fails below.
  await until(() => system.gateway.apiCache.waitingOn(key) === 100 || upstreamCalls() > 1 || answered > 0, '100 requests waiting on one flight')
  t.equal(answered, 0, 'no answer before the upstream answers')
  t.equal(upstreamCalls(), 1, 'one upstream request while 100 wait')
  held.open()
  const results = await Promise.all(answers)
  t.equal(upstreamCalls(), 1, 'one upstream request in all')
  t.same(new Set(results.map((r) => `${r.status} ${r.cache}`)), new Set(['200 MISS']), 'every answer came from that flight, none from the cache after it')
  t.equal(new Set(results.map((r) => r.text)).size, 1, 'all the same answer')
  t.match(JSON.parse(results[0]?.text ?? '{}'), { data: { entries: Array } }, 'the upstream answer')
})

t.test('stale-while-revalidate over the wire: stale at once, one refresh per key', async (t) => {
  const { system, upstream } = await startFaultySystem(t, { CACHE_TTL_MS: '0', CACHE_SWR_MS: '600000' })
  const post = poster(system)
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
  const { system, upstream } = await startFaultySystem(t, { CACHE_TTL_MS: '0', CACHE_SWR_MS: '0' })
  const post = poster(system)
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
