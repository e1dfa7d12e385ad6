import t from 'tap'
import { request } from 'undici'
import type * as Tap from 'tap'
import { PageCache } from '../../gateway/cache/page-cache.ts'
import type { RenderResponse } from '../../gateway/renderers/renderer-pool.ts'
import { PAGE_REVALIDATION_MS } from '../../shared/constants.ts'
import { h1Of } from '../helpers/html.ts'
import { get as getUrl } from '../helpers/http.ts'
import { type System, startSystem } from '../helpers/system.ts'

/**
 * A page past its TTL under load is rendered again once: the request that
 * finds it expired renders it, and the others meanwhile get the stored page
 * (X-Cache: STALE), as the query cache does with Craft's answers. Before, each
 * request that came while the page was expired rendered it (50 renders of
 * one page at 50 connections, every PAGE_CACHE_TTL_MS).
 */

const HEADERS = { 'content-type': 'text/html; charset=utf-8' }

function cacheWithClock(staleWhileRevalidateMs: number) {
  const clock = { now: 1_000_000 }
  const cache = new PageCache({ maxEntries: 10, maxBytes: 1024 * 1024, ttlMs: 1000, staleIfErrorMs: 60_000, staleWhileRevalidateMs, now: () => clock.now })
  return { cache, clock }
}

/** Renders through the gateway held at a gate (or answered by `answer` instead), and counted. */
function gateRenders(t: Tap.Test, gateway: System['gateway'], answer?: (rendered: RenderResponse) => RenderResponse) {
  const renderers = gateway.renderers
  const render = renderers.render.bind(renderers)
  const state = { renders: 0 }
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const waiters: { count: number; resolve: () => void }[] = []
  renderers.render = async (...args: Parameters<typeof render>) => {
    state.renders++
    for (const waiter of waiters) if (state.renders >= waiter.count) waiter.resolve()
    await gate
    const rendered = await render(...args)
    return answer ? answer(rendered) : rendered
  }
  t.teardown(() => {
    renderers.render = render
  })
  const entered = (count: number) => new Promise<void>((resolve) => (state.renders >= count ? resolve() : waiters.push({ count, resolve })))
  return { state, open, entered }
}

t.test('past the TTL: one request claims the render, the others get the stale page until it is over', async (t) => {
  const { cache, clock } = cacheWithClock(5000)
  cache.store(cache.ticket(), '/', 200, HEADERS, Buffer.from('<p>oud</p>'))
  const stored = cache.get('/')
  t.ok(stored && !cache.isStale(stored), 'fresh within the TTL')

  clock.now += 1500
  t.equal(cache.get('/'), undefined, 'expired and nobody renders it: a miss')
  const release = cache.claimRevalidation('/')
  t.type(release, 'function', 'the request that missed renders it again')
  const meanwhile = cache.get('/')
  t.equal(meanwhile, stored, 'the others get the stored page')
  t.ok(meanwhile && cache.isStale(meanwhile), 'marked stale')

  release?.()
  t.equal(cache.get('/'), undefined, 'that render ended without storing: the next request renders it')
  t.type(cache.claimRevalidation('/'), 'function')

  cache.store(cache.ticket(), '/', 200, HEADERS, Buffer.from('<p>nieuw</p>'))
  const renewed = cache.get('/')
  t.equal(renewed?.body.toString(), '<p>nieuw</p>', 'the new page replaces it')
  t.ok(renewed && !cache.isStale(renewed), 'fresh again')
})

t.test('a claim lapses after PAGE_REVALIDATION_MS, and nothing is served stale past the window', async (t) => {
  const { cache, clock } = cacheWithClock(PAGE_REVALIDATION_MS * 3)
  cache.store(cache.ticket(), '/', 200, HEADERS, Buffer.from('<p>oud</p>'))
  clock.now += 1001
  const lapsing = cache.claimRevalidation('/')
  t.type(lapsing, 'function')
  clock.now += PAGE_REVALIDATION_MS - 1
  t.ok(cache.get('/'), 'still served while the render may be running')
  clock.now += 1
  t.equal(cache.get('/'), undefined, 'a render that never said it ended holds the others off no longer')
  t.type(cache.claimRevalidation('/'), 'function', 'another request may try')
  lapsing?.()
  t.ok(cache.get('/'), "the lapsed render's late end leaves the new claim standing: the others still get the page")

  clock.now += PAGE_REVALIDATION_MS * 2
  t.equal(cache.get('/'), undefined, 'past the stale-while-revalidate window: a miss')
  t.equal(cache.claimRevalidation('/'), undefined, 'and no claim: every request renders, as without the window')
  t.ok(cache.stale('/'), 'the page is still kept to stand in when no renderer answers')
})

t.test("a claim ends with its render even when the page's variants were attached meanwhile", async (t) => {
  const { cache, clock } = cacheWithClock(5000)
  // Big enough to be encoded (a variant a client asked for, off the event loop): attaching it stores a copy of the page.
  cache.store(cache.ticket(), '/', 200, HEADERS, Buffer.from(`<p>${'oud '.repeat(2000)}</p>`))
  clock.now += 1500
  const release = cache.claimRevalidation('/')
  const claimed = cache.get('/')
  if (claimed) cache.want('/', claimed, 'br')
  await cache.idle()
  const encoded = cache.get('/')
  t.ok(encoded?.brotli && encoded !== claimed, 'the variants came while the page was claimed, on a copy of it')
  release?.()
  t.equal(cache.get('/'), undefined, 'the render is over: the next request renders it, not STALE for PAGE_REVALIDATION_MS')
})

t.test('with no stale-while-revalidate window a page past its TTL is never served from the cache', async (t) => {
  const { cache, clock } = cacheWithClock(0)
  cache.store(cache.ticket(), '/', 200, HEADERS, Buffer.from('<p>oud</p>'))
  clock.now += 1001
  t.equal(cache.claimRevalidation('/'), undefined)
  t.equal(cache.get('/'), undefined)
})

t.test('over HTTP: while one request renders an expired page, the others get it STALE at once, without a render of their own', async (t) => {
  // A TTL of 0: every stored page is expired at once.
  const system = await startSystem({ PAGE_CACHE_TTL_MS: '0' })
  t.teardown(() => system.close())
  // Bounded, so that without the feature the others (held at the gate too) fail the test instead of hanging it.
  const get = (path: string) => getUrl(`${system.url}${path}`, { timeoutMs: 20_000 })
  const first = await get('/kantoren')
  t.equal(first.headers['x-cache'], 'MISS')

  const gate = gateRenders(t, system.gateway)

  const revalidating = get('/kantoren')
  await gate.entered(1)
  const others = await Promise.all(Array.from({ length: 5 }, () => get('/kantoren')))
  for (const other of others) {
    t.equal(other.status, 200)
    t.equal(other.headers['x-cache'], 'STALE', 'the stored page, while the render runs')
    t.equal(h1Of(other.body), h1Of(first.body))
    t.match(other.headers['cache-control'], /stale-while-revalidate=/, "with the page's own Cache-Control, which allows this")
  }
  t.equal(gate.state.renders, 1, 'one render for six requests')

  gate.open()
  const renewed = await revalidating
  t.equal(renewed.status, 200)
  t.equal(renewed.headers['x-cache'], 'MISS', 'the request that found it expired got the new render')
  t.equal(gate.state.renders, 1)

  const metrics = await request(`${system.internalUrl}/metrics`)
  const text = await metrics.body.text()
  t.match(text, /cache_lookups_total\{[^}]*cache="page"[^}]*result="STALE"[^}]*\} 5/, 'counted as STALE lookups')
})

t.test('over HTTP: with CACHE_SWR_MS=0 (and no single flight for renders) every request past the TTL renders, the concurrent ones too', async (t) => {
  // PAGE_RENDER_WAIT_MS=0: otherwise the concurrent misses wait for one render (test/gateway/render-flights.test.ts).
  const system = await startSystem({ PAGE_CACHE_TTL_MS: '0', CACHE_SWR_MS: '0', PAGE_RENDER_WAIT_MS: '0' })
  t.teardown(() => system.close())
  const get = async () => {
    const response = await request(`${system.url}/kantoren`)
    await response.body.dump()
    return response.headers['x-cache']
  }
  t.equal(await get(), 'MISS')
  const gate = gateRenders(t, system.gateway)
  const answers = Array.from({ length: 4 }, get)
  // With a window the three later requests would get the stored page at once (and the test fails below); without one they all render.
  await Promise.race([gate.entered(4), Promise.all(answers.slice(1))])
  gate.open()
  t.same(await Promise.all(answers), ['MISS', 'MISS', 'MISS', 'MISS'])
  t.equal(gate.state.renders, 4)
})

t.test('over HTTP: a render that answers 404 drops the stored page; a failing one keeps it to stand in', async (t) => {
  const system = await startSystem({ PAGE_CACHE_TTL_MS: '0' })
  t.teardown(() => system.close())
  const first = await request(`${system.url}/kantoren`)
  await first.body.dump()
  t.ok(system.gateway.pageCache.stale('/kantoren'), 'stored')

  let status = 503
  const gate = gateRenders(t, system.gateway, (rendered) => ({ ...rendered, statusCode: status }))
  gate.open()
  const failed = await request(`${system.url}/kantoren`)
  await failed.body.dump()
  t.equal(failed.statusCode, 200, 'a 5xx render: the stored page stands in')
  t.equal(failed.headers['x-cache'], 'STALE')
  t.ok(system.gateway.pageCache.stale('/kantoren'), 'and is kept')

  status = 404
  const gone = await request(`${system.url}/kantoren`)
  await gone.body.dump()
  t.equal(gone.statusCode, 404)
  t.equal(system.gateway.pageCache.stale('/kantoren'), undefined, 'the page is gone: nothing stored is served for it any more')
})

t.test('the stale-if-error window stays its own when it is the shorter one', async (t) => {
  const clock = { now: 1_000_000 }
  const cache = new PageCache({ maxEntries: 10, maxBytes: 1024 * 1024, ttlMs: 1000, staleIfErrorMs: 0, staleWhileRevalidateMs: 5000, now: () => clock.now })
  cache.store(cache.ticket(), '/', 200, HEADERS, Buffer.from('<p>oud</p>'))
  clock.now += 1001
  t.type(cache.claimRevalidation('/'), 'function', 'kept for the revalidation window')
  t.ok(cache.get('/'), 'served stale while it is rendered again')
  t.equal(cache.stale('/'), undefined, 'but never to stand in for a failed render: CACHE_STALE_IF_ERROR_MS=0')
})
