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
