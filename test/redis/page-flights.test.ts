import { randomBytes } from 'node:crypto'
import t from 'tap'
import type * as Tap from 'tap'
import { SITE_SETTINGS_HANDLE } from '../../shared/constants.ts'
import { h1Of } from '../helpers/html.ts'
import { get as getUrl, purge } from '../helpers/http.ts'
import { PAIR_PURGE_SECRET, nextEvent, startSharedPair, tierOf } from '../helpers/redis.ts'
import type { System } from '../helpers/system.ts'
import { until } from '../helpers/until.ts'

/**
 * One render per page across gateways (issue 33, item 7): the gateway whose
 * miss takes the page's lock in Redis renders it and stores it there; a
 * gateway that misses meanwhile waits for that page instead of rendering its
 * own. Pages in Redis are signed with RENDER_SECRET, which both gateways share.
 */

const pair = await startSharedPair({ RENDER_SECRET: randomBytes(24).toString('base64url') })
t.teardown(() => pair.close())
const systems = [pair.a, pair.b]

const get = (system: System, path: string) => getUrl(`${system.url}${path}`, { timeoutMs: 20_000 })

/** Renders of the gateways (both unless told), counted, each held until `opened` (when given). */
function countRenders(t: Tap.Test, opened?: Promise<void>, only: readonly System[] = systems) {
  const state = { renders: 0 }
  for (const system of only) {
    const renderers = system.gateway.renderers
    const render = renderers.render.bind(renderers)
    renderers.render = async (...args: Parameters<typeof render>) => {
      state.renders++
      await opened
      return render(...args)
    }
    t.teardown(() => {
      renderers.render = render
    })
  }
  return state
}

// The redirect rules known in each gateway, as they are after a purge of the site's settings: a miss that must ask the CMS
// for them starts its render beside that lookup, before it could know of the other gateway's (pages.ts, lookUpRedirect).
for (const system of systems) await get(system, '/')

const pageKeyInRedis = (path: string) => `${pair.a.gateway.config.redis.keyPrefix}q:page:${path}`

t.test('concurrent misses of one page spread over both gateways: one render in all', async (t) => {
  const path = '/kantoren'
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  const counted = countRenders(t, opened)
  const waitingElsewhere = Promise.race(systems.map((system) => nextEvent(tierOf(system), 'pageWaiting', 'a gateway waits for the other one\'s page')))
  const answers = Promise.all(Array.from({ length: 20 }, (_, i) => get(systems[i % 2] as System, path)))
  // Each gateway: one miss asked Redis, nine wait on it; one of the two renders, the other waits for its page (or a second render shows there is no single flight).
  await until(
    () => counted.renders > 1 || (counted.renders === 1 && systems.every((system) => system.gateway.renderFlights.waitingOn(path) === 9)),
    () => `one render, nine waiters in each gateway: ${JSON.stringify({ renders: counted.renders, waiting: systems.map((system) => system.gateway.renderFlights.waitingOn(path)) })}`,
  )
  if (counted.renders === 1) await waitingElsewhere
  open()
  const pages = await answers
  t.equal(counted.renders, 1, 'one render for both gateways')
  t.same(
    pages.map((page) => page.status),
    Array(20).fill(200),
  )
  t.equal(pages.filter((page) => page.cache === 'MISS').length, 1, 'the request that rendered; every other one got the stored page')
  t.equal(new Set(pages.map((page) => h1Of(page.body))).size, 1, 'the same page everywhere')
  t.equal(await pair.redis.client.exists(pageKeyInRedis(path)), 1, 'the page is in Redis')
})

t.test('a purge on one gateway drops the page from Redis too: the next miss elsewhere renders', async (t) => {
  const path = '/over-ons'
  await get(pair.a, path)
  t.equal(await pair.redis.client.exists(pageKeyInRedis(path)), 1, 'shared')
  const fromRedis = await get(pair.b, path)
  t.equal(fromRedis.cache, 'HIT', "the other gateway serves the first one's page without a render")

  const purged = nextEvent(tierOf(pair.b), 'purge', 'the purge reaches the other gateway')
  t.equal((await purge(pair.a.url, { sections: [SITE_SETTINGS_HANDLE], hard: true }, { secret: PAIR_PURGE_SECRET })).status, 200)
  await purged
  t.equal(await pair.redis.client.exists(pageKeyInRedis(path)), 0, 'gone from Redis')
  const counted = countRenders(t)
  const again = await get(pair.b, path)
  t.equal(again.cache, 'MISS')
  t.equal(counted.renders, 1, 'rendered anew')
})

t.test('a page in Redis without the signature of the shared secret is refused and rendered instead', async (t) => {
  const path = '/werken-bij'
  const forged = `P ${'0'.repeat(64)}\n${JSON.stringify([Date.now(), 200, { 'content-type': 'text/html; charset=utf-8' }, []])}\n<h1>Vervalst</h1>`
  await pair.redis.client.set(pageKeyInRedis(path), forged, 'PX', 60_000)
  const refused = nextEvent(tierOf(pair.a), 'refused', 'the forged page is refused')
  const counted = countRenders(t)
  const page = await get(pair.a, path)
  await refused
  t.equal(page.status, 200)
  t.not(h1Of(page.body), 'Vervalst', 'not the forged page')
  t.equal(page.cache, 'MISS')
  t.equal(counted.renders, 1)
})

t.test("a page in Redis whose body was changed but whose signature line was kept is refused by the other gateway", async (t) => {
  const path = '/kantoren'
  for (const system of systems) system.gateway.pageCache.purge()
  await pair.redis.client.del(pageKeyInRedis(path))
  const stored = await get(pair.a, path)
  t.equal(stored.status, 200)
  const entry = await pair.redis.client.get(pageKeyInRedis(path))
  if (entry === null) throw new Error('gateway A stored no page in Redis')
  const title = h1Of(stored.body)
  t.ok(title && entry.includes(title), 'the page as stored')
  // Only what follows the header lines changes: the signature line and the page's head stay as gateway A wrote them.
  const tampered = entry.replace(`>${title}<`, '>Vervalst<')
  t.not(tampered, entry)
  t.equal(tampered.split('\n', 2).join('\n'), entry.split('\n', 2).join('\n'), 'the signature and header lines kept')
  await pair.redis.client.set(pageKeyInRedis(path), tampered, 'PX', 60_000)
  const refused = nextEvent(tierOf(pair.b), 'refused', 'the changed page is refused')
  const counted = countRenders(t, undefined, [pair.b])
  const page = await get(pair.b, path)
  t.equal(page.status, 200)
  t.not(h1Of(page.body), 'Vervalst', 'not the changed page')
  t.equal(page.cache, 'MISS')
  t.equal(counted.renders, 1, 'rendered anew')
  await refused
})

t.test("a render that fails on one gateway gives its lock up: the gateway waiting for its page renders its own", async (t) => {
  const path = '/actueel'
  for (const system of systems) system.gateway.pageCache.purge()
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  let renders = 0
  const renderers = pair.a.gateway.renderers
  const render = renderers.render.bind(renderers)
  // Gateway A's render fails once let go; B's goes through.
  renderers.render = async () => {
    renders++
    await opened
    throw new Error('renderer down')
  }
  t.teardown(() => {
    renderers.render = render
  })
  const counted = countRenders(t, undefined, [pair.b])
  const failing = get(pair.a, path)
  await nextEvent(tierOf(pair.a), 'pageLocked', 'gateway A takes the lock')
  const waiting = nextEvent(tierOf(pair.b), 'pageWaiting', 'gateway B waits for its page')
  const waited = nextEvent(tierOf(pair.b), 'pageWaited', "gateway B's wait ends")
  const other = get(pair.b, path)
  await waiting
  open()
  t.same(await waited, [path, 'released'], 'ended by the lock going (given up; a lease nobody renews would lapse within 500 ms too), not by the bound')
  t.equal((await failing).status, 503, 'the failed render: no stale page to stand in')
  const page = await other
  t.equal(page.status, 200, 'the other gateway rendered the page itself once the lock was given up')
  t.equal(page.cache, 'MISS')
  t.equal(renders, 1)
  t.equal(counted.renders, 1, "B's own render")
})

t.test("a soft purge: one gateway's background refresh stores the page in Redis, and the other's refresh takes it from there without a render", async (t) => {
  const path = '/werken-bij'
  await get(pair.a, path)
  t.equal((await get(pair.b, path)).cache, 'HIT', 'both gateways hold the page (B from Redis)')
  const purged = nextEvent(tierOf(pair.b), 'purge', 'the purge reaches the other gateway')
  t.equal((await purge(pair.a.url, { sections: [SITE_SETTINGS_HANDLE] }, { secret: PAIR_PURGE_SECRET })).status, 200)
  await purged
  t.equal(await pair.redis.client.exists(pageKeyInRedis(path)), 0, 'Redis dropped its copy')
  const counted = countRenders(t)

  t.equal((await get(pair.a, path)).cache, 'STALE', 'A: the marked page at once')
  await pair.a.gateway.pageRefreshes.idle()
  t.equal(counted.renders, 1, "A's background refresh rendered it")
  t.equal(await pair.redis.client.exists(pageKeyInRedis(path)), 1, 'and stored it in Redis, as a visitor\'s render would')

  t.equal((await get(pair.b, path)).cache, 'STALE', 'B: its own marked copy at once')
  await pair.b.gateway.pageRefreshes.idle()
  t.equal(counted.renders, 1, "B's refresh took A's page from Redis: no second render")
  t.equal((await get(pair.b, path)).cache, 'HIT', 'B now holds the refreshed page')
})

t.test('the wait across gateways is bounded: with the render hung, the waiting gateway renders its own after PAGE_RENDER_WAIT_MS', async (t) => {
  const path = '/werken-bij/open-sollicitatie'
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  const renderers = pair.a.gateway.renderers
  const render = renderers.render.bind(renderers)
  renderers.render = async (...args: Parameters<typeof render>) => {
    await opened
    return render(...args)
  }
  t.teardown(() => {
    renderers.render = render
    open()
  })
  const hung = get(pair.a, path)
  await nextEvent(tierOf(pair.a), 'pageLocked', 'gateway A takes the lock')
  const waited = nextEvent(tierOf(pair.b), 'pageWaited', "gateway B's wait ends")
  const page = await get(pair.b, path)
  t.same(await waited, [path, 'timeout'], 'ended by its bound')
  t.equal(page.status, 200, 'the waiting gateway answered by itself')
  t.equal(page.cache, 'MISS')
  t.equal(await pair.redis.client.exists(`${pair.a.gateway.config.redis.keyPrefix}l:page:${path}`), 1, "by its own bound: A's lock had not lapsed (REDIS_LOCK_MS)")
  open()
  t.equal((await hung).status, 200)
})
