import { EventEmitter, once } from 'node:events'
import t from 'tap'
import type * as Tap from 'tap'
import { request } from 'undici'
import type { RenderResponse } from '../../gateway/renderers/renderer-pool.ts'
import { RENDER_OUTCOME_TRAILER, SITE_SETTINGS_HANDLE } from '../../shared/constants.ts'
import { startFaultySystem } from '../helpers/fault-upstream.ts'
import { h1Of } from '../helpers/html.ts'
import { type Answer, get as getUrl, purge } from '../helpers/http.ts'
import { type System, startSystem } from '../helpers/system.ts'

/**
 * One render per page key at a time (issue 33, item 7): concurrent misses of
 * a page wait for the one render under way and get the stored page, with a
 * bound on the wait; a failed render is shared, a render whose page is not
 * stored lets the waiters render, a preview never leads nor waits. Renders
 * are counted where the gateway hands them to the renderers.
 */

const VISITORS = 50

type Page = Answer

/** Bounded, so that a waiter that never ends fails the test instead of hanging it. */
const get = (system: System, path: string, headers: Record<string, string> = {}): Promise<Page> => getUrl(`${system.url}${path}`, { headers, timeoutMs: 20_000 })

interface RenderOptions {
  /** What a render waits for before it goes to the renderer (its number, from 1); undefined: goes at once. */
  hold?: (call: number) => Promise<void> | undefined
  /** The renderer's answer as the gateway gets it, changed (or a failure thrown). */
  answer?: (rendered: RenderResponse, call: number) => RenderResponse
}

/** Renders through the gateway, counted per path, held or changed as the test says. */
function countRenders(t: Tap.Test, gateway: System['gateway'], options: RenderOptions = {}) {
  const renderers = gateway.renderers
  const render = renderers.render.bind(renderers)
  const byPath = new Map<string, number>()
  const events = new EventEmitter()
  let total = 0
  renderers.render = async (...args: Parameters<typeof render>) => {
    const path = args[0]
    const call = ++total
    byPath.set(path, (byPath.get(path) ?? 0) + 1)
    events.emit('render', path)
    await options.hold?.(call)
    const rendered = await render(...args)
    return options.answer ? options.answer(rendered, call) : rendered
  }
  t.teardown(() => {
    renderers.render = render
  })
  return {
    get total() {
      return total
    },
    of: (path: string) => byPath.get(path) ?? 0,
    /** Settles once `count` renders have begun, of any path. */
    begun: (count: number) =>
      new Promise<void>((resolve) => {
        const check = (): void => {
          if (total >= count) {
            events.off('render', check)
            resolve()
          }
        }
        events.on('render', check)
        check()
      }),
    /** Settles once some path has been rendered `count` times: without single flight, the second render of one page. */
    reached: (count: number) =>
      new Promise<void>((resolve) => {
        const check = (): void => {
          if ([...byPath.values()].some((n) => n >= count)) {
            events.off('render', check)
            resolve()
          }
        }
        events.on('render', check)
        check()
      }),
  }
}

/** Settles once `count` requests wait on the render of each key. */
function waiters(system: System, keys: readonly string[], count: number): Promise<void> {
  const flights = system.gateway.renderFlights
  return new Promise((resolve) => {
    const check = (): void => {
      if (keys.every((key) => flights.waitingOn(key) >= count)) {
        flights.off('waiting', check)
        resolve()
      }
    }
    flights.on('waiting', check)
    check()
  })
}

function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { opened, open }
}

const tally = (pages: Page[], header: string) => {
  const counts: Record<string, number> = {}
  for (const page of pages) {
    const value = String(page.headers[header] ?? page.status)
    counts[value] = (counts[value] ?? 0) + 1
  }
  return counts
}

t.test(`${VISITORS} concurrent misses of one page: one render, every visitor gets the page`, async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const held = gate()
  const renders = countRenders(t, system.gateway, { hold: () => held.opened })

  const answers = Array.from({ length: VISITORS }, () => get(system, '/kantoren'))
  // Without single flight the second render comes instead of the waiters, and the counts below fail.
  await Promise.race([waiters(system, ['/kantoren'], VISITORS - 1), renders.reached(2)])
  held.open()
  const pages = await Promise.all(answers)

  t.equal(renders.total, 1, 'one render')
  t.same(tally(pages, 'status'), { 200: VISITORS }, 'every visitor got 200')
  t.same(tally(pages, 'x-cache'), { MISS: 1, HIT: VISITORS - 1 }, 'the one who rendered, and the stored page for the others')
  t.equal(new Set(pages.map((page) => h1Of(page.body))).size, 1, 'the same page')
  t.ok(h1Of(pages[0]?.body ?? ''), 'a page with its heading')
  t.equal(system.gateway.renderFlights.size, 0, 'no render left under way')
  const metrics = await (await request(`${system.internalUrl}/metrics`)).body.text()
  t.match(metrics, new RegExp(`page_render_waits_total\\{outcome="over"[^}]*\\} ${VISITORS - 1}\\b`), 'the waits counted, by how they ended')
})

t.test(`after a purge of ${SITE_SETTINGS_HANDLE}, ${VISITORS} concurrent visitors of each page cause one render per page`, async (t) => {
  const system = await startSystem({ PURGE_SECRET: 'webhook-secret' })
  t.teardown(() => system.close())
  const paths = ['/', '/kantoren', '/over-ons', '/actueel']
  for (const path of paths) t.equal((await get(system, path)).status, 200, `${path} stored`)

  t.equal((await purge(system.url, { sections: [SITE_SETTINGS_HANDLE], hard: true }, { secret: 'webhook-secret' })).status, 200)
  for (const path of paths) t.equal(system.gateway.pageCache.stale(path), undefined, `${path} purged`)

  const held = gate()
  const renders = countRenders(t, system.gateway, { hold: () => held.opened })
  const answers = paths.flatMap((path) => Array.from({ length: VISITORS }, () => get(system, path).then((page) => ({ path, page }))))
  await Promise.race([waiters(system, paths, VISITORS - 1), renders.reached(2)])
  held.open()
  const done = await Promise.all(answers)

  for (const path of paths) {
    t.equal(renders.of(path), 1, `one render of ${path}`)
    const pages = done.filter((answer) => answer.path === path).map((answer) => answer.page)
    t.same(tally(pages, 'status'), { 200: VISITORS }, `${VISITORS} × 200 for ${path}`)
    t.equal(new Set(pages.map((page) => h1Of(page.body))).size, 1, `the same page for every visitor of ${path}`)
  }
  t.equal(renders.total, paths.length)
})

t.test('the wait is bounded: with the render hung, the waiters render themselves once PAGE_RENDER_WAIT_MS has passed', async (t) => {
  const system = await startSystem({ PAGE_RENDER_WAIT_MS: '300' })
  t.teardown(() => system.close())
  const hung = gate()
  // The waiters' own renders are held until all four have timed out: on a loaded machine the
  // requests arrive spread out, and a waiter's page stored early would stand in for a later waiter.
  const allTimedOut = gate()
  const timedOut: string[] = []
  system.gateway.renderFlights.on('timedOut', (key) => {
    timedOut.push(key)
    if (timedOut.length === 4) allTimedOut.open()
  })
  // The first render hangs until the end of the test.
  const renders = countRenders(t, system.gateway, { hold: (call) => (call === 1 ? hung.opened : allTimedOut.opened) })

  const leader = get(system, '/over-ons')
  await renders.reached(1)
  const others = await Promise.all(Array.from({ length: 4 }, () => get(system, '/over-ons')))
  t.same(tally(others, 'status'), { 200: 4 }, 'each waiter got the page')
  t.same(tally(others, 'x-cache'), { MISS: 4 }, 'rendered by itself: nothing was stored to stand in')
  t.same(timedOut, Array(4).fill('/over-ons'), 'after waiting its whole bound')
  t.equal(renders.total, 5)

  hung.open()
  t.equal((await leader).status, 200, 'the hung render ends too')
})

t.test('the wait is bounded: with a stored page past its TTL, the waiters get it STALE at the bound, without a render', async (t) => {
  // Every stored page is past its TTL at once, with no stale-while-revalidate window: each request misses, and the page stays to stand in.
  const system = await startSystem({ PAGE_RENDER_WAIT_MS: '300', PAGE_CACHE_TTL_MS: '0', CACHE_SWR_MS: '0' })
  t.teardown(() => system.close())
  t.equal((await get(system, '/over-ons')).headers['x-cache'], 'MISS')
  const hung = gate()
  const renders = countRenders(t, system.gateway, { hold: () => hung.opened })

  const leader = get(system, '/over-ons')
  await renders.reached(1)
  const others = await Promise.all(Array.from({ length: 4 }, () => get(system, '/over-ons')))
  t.same(tally(others, 'x-cache'), { STALE: 4 }, 'the stored page')
  t.same(tally(others, 'status'), { 200: 4 })
  t.equal(renders.total, 1, 'no render besides the hung one')
  hung.open()
  t.equal((await leader).status, 200)
})

t.test('a failed render is shared: its waiters get the 503 page at once, with one render in all', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const held = gate()
  const renders = countRenders(t, system.gateway, {
    hold: () => held.opened,
    answer: () => {
      throw new Error('renderer down')
    },
  })
  const answers = Array.from({ length: 5 }, () => get(system, '/werken-bij'))
  await Promise.race([waiters(system, ['/werken-bij'], 4), renders.reached(2)])
  held.open()
  const pages = await Promise.all(answers)
  t.same(tally(pages, 'status'), { 503: 5 }, 'the Dutch 503 page for all')
  t.equal(renders.total, 1, 'the renderers were tried once, not once per visitor')
})

t.test('a render whose page is not stored (degraded) lets its waiters render themselves', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const held = gate()
  const renders = countRenders(t, system.gateway, {
    hold: (call) => (call === 1 ? held.opened : undefined),
    answer: (rendered) => ({ ...rendered, headers: { ...rendered.headers, [RENDER_OUTCOME_TRAILER]: 'degraded' }, trailers: {} }),
  })
  const answers = Array.from({ length: 5 }, () => get(system, '/werken-bij'))
  await Promise.race([waiters(system, ['/werken-bij'], 4), renders.reached(2)])
  held.open()
  const pages = await Promise.all(answers)
  t.same(tally(pages, 'status'), { 200: 5 }, 'every visitor got the page')
  t.same(tally(pages, 'x-cache'), { MISS: 5 }, 'each its own render: nothing was stored')
  t.equal(renders.total, 5)
  t.equal(system.gateway.pageCache.stale('/werken-bij'), undefined, 'and nothing is stored')
})

t.test('a visitor whose render was cut short (its client left mid-page) hands the wait on to a new render', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const held = gate()
  const renders = countRenders(t, system.gateway, { hold: (call) => (call === 1 ? held.opened : undefined) })
  const leaving = new AbortController()
  const leader = request(`${system.url}/kantoren`, { signal: leaving.signal }).then(
    () => undefined,
    () => undefined,
  )
  await renders.reached(1)
  const answers = Array.from({ length: 3 }, () => get(system, '/kantoren'))
  await waiters(system, ['/kantoren'], 3)
  const settled = once(system.gateway.renderFlights, 'settled')
  leaving.abort()
  t.same((await settled).slice(1), ['again'], 'the render is over without a page stored')
  held.open()
  await leader
  const pages = await Promise.all(answers)
  t.same(tally(pages, 'status'), { 200: 3 })
  t.same(tally(pages, 'x-cache'), { MISS: 1, HIT: 2 }, 'one of the waiters rendered it, the others waited on that render')
  t.ok(renders.total <= 3, 'the left render and one more (the first may still have been stored as it went)')
})

t.test('a preview is never coalesced with visitors: it waits on no render, and no visitor waits on it', async (t) => {
  const { system, upstream } = await startFaultySystem(t, { CRAFT_TOKEN: 'site-default-token' })
  const live = (await get(system, '/over-ons')).body
  system.gateway.pageCache.purge()
  const held = gate()
  const renders = countRenders(t, system.gateway, { hold: () => held.opened })

  const preview = get(system, '/over-ons?x-craft-preview=a1b2&token=preview-token-about-draft')
  await renders.reached(1)
  const visitors = Array.from({ length: 4 }, () => get(system, '/over-ons'))
  // The first visitor renders for itself (the preview leads nothing), the other three wait on that render.
  await Promise.race([waiters(system, ['/over-ons'], 3), new Promise<void>((resolve) => system.gateway.renderFlights.once('settled', () => resolve()))])
  t.equal(renders.total, 2, "the preview's render and the visitors' one")
  const later = get(system, '/over-ons?x-craft-preview=a1b2&token=preview-token-about-draft')
  await renders.begun(3)
  held.open()
  const [previewPage, laterPreview, ...visitorPages] = await Promise.all([preview, later, ...visitors])
  t.equal(h1Of(previewPage?.body ?? ''), 'Over Havenborg (concept)', 'the preview shows the draft')
  t.equal(h1Of(laterPreview?.body ?? ''), 'Over Havenborg (concept)', 'a preview during the visitors\' render has its own')
  t.equal(renders.total, 3, 'each preview its own render; the visitors one')
  for (const page of visitorPages) t.equal(h1Of(page.body), h1Of(live), 'every visitor gets the live page')
  t.same(tally(visitorPages, 'x-cache'), { MISS: 1, HIT: 3 })
})
