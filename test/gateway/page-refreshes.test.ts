import t from 'tap'
import { PageRefreshes, type RefreshScheduled } from '../../gateway/cache/page-refreshes.ts'

/**
 * The background refreshes of stale pages (cache/page-refreshes.ts): at most
 * maxInFlight at once, maxQueued more waiting, one per page; past the queue
 * a refresh is refused (its page stays stale, served at once).
 */

/** A refresh that runs until its `finish` is called. */
function held() {
  let finish!: () => void
  let started = false
  const done = new Promise<void>((resolve) => (finish = resolve))
  return {
    run: () => {
      started = true
      return done
    },
    finish: () => finish(),
    get started() {
      return started
    },
  }
}

t.test('at most maxInFlight run, maxQueued wait, first come first served; one per key; past the queue refused', async (t) => {
  const outcomes: RefreshScheduled[] = []
  const refreshes = new PageRefreshes({ maxInFlight: 2, maxQueued: 2, onScheduled: (outcome) => outcomes.push(outcome) })
  const runs = Array.from({ length: 6 }, () => held())
  const asked = runs.map((run, i) => refreshes.schedule(`/pagina-${i}`, run.run))
  t.same(asked, ['started', 'started', 'queued', 'queued', 'refused', 'refused'])
  t.same(outcomes, asked, 'each told to onScheduled')
  t.equal(refreshes.inFlight, 2)
  t.equal(refreshes.queued, 2)
  t.equal(refreshes.schedule('/pagina-0', held().run), 'running', 'a key with a refresh under way gets no second one')
  t.equal(refreshes.schedule('/pagina-2', held().run), 'running', 'nor one with a refresh waiting')
  t.ok(refreshes.has('/pagina-3') && !refreshes.has('/pagina-4'), 'a refused key has none')
  t.same(runs.map((run) => run.started), [true, true, false, false, false, false])

  runs[1]?.finish()
  await new Promise((resolve) => setImmediate(resolve))
  t.same(runs.map((run) => run.started), [true, true, true, false, false, false], 'one ends, the first waiting starts')
  t.notOk(refreshes.has('/pagina-1'), 'an ended refresh frees its key')
  t.equal(refreshes.schedule('/pagina-4', runs[4]?.run ?? held().run), 'queued', 'and the queue has room again')

  const idle = refreshes.idle()
  for (const run of runs) run.finish()
  await idle
  t.equal(refreshes.inFlight, 0)
  t.equal(refreshes.mostInFlight, 2, 'never more than two at once')
  t.ok(runs[4]?.started, 'the one queued later ran too')
})

t.test('a failing refresh frees its place; close drops the waiting ones and refuses new ones', async (t) => {
  const refreshes = new PageRefreshes({ maxInFlight: 1, maxQueued: 5 })
  const running = held()
  refreshes.schedule('/a', () => Promise.reject(new Error('render failed')))
  refreshes.schedule('/b', running.run)
  await new Promise((resolve) => setImmediate(resolve))
  t.ok(running.started, 'the failure ended the first, the next started')
  const waiting = held()
  refreshes.schedule('/c', waiting.run)
  refreshes.close()
  t.equal(refreshes.queued, 0, 'the waiting one dropped')
  t.notOk(refreshes.has('/c'))
  t.equal(refreshes.schedule('/d', held().run), 'refused', 'nothing new once closing')
  running.finish()
  await refreshes.idle()
  t.notOk(waiting.started, 'the dropped one never ran')
})

t.test("a changed page's refresh goes ahead of expired pages', and takes the last one's place in a full queue", async (t) => {
  const refreshes = new PageRefreshes({ maxInFlight: 1, maxQueued: 2 })
  const order: string[] = []
  const dropped: string[] = []
  const first = held()
  refreshes.schedule('/bezig', first.run)
  const runOf = (key: string) => () => {
    order.push(key)
    return Promise.resolve()
  }
  t.equal(refreshes.schedule('/verlopen-1', runOf('/verlopen-1'), 'expired', () => dropped.push('/verlopen-1')), 'queued')
  t.equal(refreshes.schedule('/verlopen-2', runOf('/verlopen-2'), 'expired', () => dropped.push('/verlopen-2')), 'queued')
  t.equal(refreshes.schedule('/verlopen-3', runOf('/verlopen-3'), 'expired'), 'refused', 'the queue is full for an expired page')
  t.equal(refreshes.schedule('/gewijzigd', runOf('/gewijzigd'), 'changed'), 'queued', 'a changed page still gets a place')
  t.same(dropped, ['/verlopen-2'], 'the expired page that came last gave it up, and was told')
  t.notOk(refreshes.has('/verlopen-2'), 'it has no refresh now: its next request asks again')
  t.equal(refreshes.queued, 2, 'the bound holds')
  t.equal(refreshes.schedule('/gewijzigd-2', runOf('/gewijzigd-2'), 'changed'), 'queued', 'another changed page takes the last expired place')
  t.equal(refreshes.schedule('/gewijzigd-3', runOf('/gewijzigd-3'), 'changed'), 'refused', 'changed pages never drop each other')
  first.finish()
  await refreshes.idle()
  t.same(order, ['/gewijzigd', '/gewijzigd-2'], 'the changed pages ran first, in their order')
  t.same(dropped, ['/verlopen-2', '/verlopen-1'])
})

t.test('closing drops the waiting refreshes and tells each', async (t) => {
  const refreshes = new PageRefreshes({ maxInFlight: 1, maxQueued: 2 })
  const first = held()
  const dropped: string[] = []
  refreshes.schedule('/bezig', first.run)
  refreshes.schedule('/wacht', held().run, 'changed', () => dropped.push('/wacht'))
  refreshes.close()
  t.same(dropped, ['/wacht'])
  first.finish()
  await refreshes.idle()
})

t.test('a changed page asked for after an expired one still runs before it', async (t) => {
  const refreshes = new PageRefreshes({ maxInFlight: 1, maxQueued: 2 })
  const order: string[] = []
  const first = held()
  refreshes.schedule('/bezig', first.run)
  const runOf = (key: string) => () => {
    order.push(key)
    return Promise.resolve()
  }
  refreshes.schedule('/verlopen', runOf('/verlopen'))
  refreshes.schedule('/gewijzigd', runOf('/gewijzigd'), 'changed')
  first.finish()
  await refreshes.idle()
  t.same(order, ['/gewijzigd', '/verlopen'])
})

t.test('idle settles only once nothing runs and nothing waits; a dropped refresh need not listen', async (t) => {
  const refreshes = new PageRefreshes({ maxInFlight: 1, maxQueued: 1 })
  const first = held()
  const second = held()
  refreshes.schedule('/een', first.run)
  refreshes.schedule('/twee', second.run, 'expired')
  let settled = false
  const idle = refreshes.idle().then(() => (settled = true))
  const third = held()
  t.equal(refreshes.schedule('/drie', third.run, 'changed'), 'queued', 'an expired refresh without `dropped` gives up its place all the same')
  await new Promise((resolve) => setImmediate(resolve))
  t.notOk(settled, 'not idle while one runs and one waits')
  first.finish()
  await new Promise((resolve) => setImmediate(resolve))
  t.notOk(settled, 'not idle while the next runs')
  t.ok(third.started && !second.started, 'the changed page ran, the expired one gave up its place')
  third.finish()
  await idle
  t.ok(settled)
})
