import Fastify from 'fastify'
import t from 'tap'
import { EVENT_LOOP_SAMPLE_MS } from '../../shared/constants.ts'
import { readMetrics, setUpMetrics } from '../../shared/metrics.ts'

const valueOf = (text: string, name: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`))
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1))
}

/** Holds the event loop for `ms` without yielding: what a runaway render or a huge JSON.parse does. */
function stall(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until);
}

/**
 * Lets the sampler tick `ticks` times: libuv runs timers in the order they
 * are due, so a timer due after the sampler's ticks runs after them.
 */
const afterTicks = (ticks: number) => new Promise((resolve) => setTimeout(resolve, ticks * EVENT_LOOP_SAMPLE_MS + 10))

t.test('the event loop is sampled every EVENT_LOOP_SAMPLE_MS, and a stall of a few periods shows in the lag metrics', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  const { registry } = setUpMetrics(app, 'test')

  // Reading resets prom-client's delay histogram; its first tick after a reset only notes the time.
  await readMetrics(registry)
  await afterTicks(3)
  const idle = await readMetrics(registry)
  // An idle loop's ticks are one period apart (prom-client's own default, 10 ms, would give about 0.01 s here).
  const minSeconds = valueOf(idle, 'nodejs_eventloop_lag_min_seconds')
  t.ok(minSeconds >= (0.9 * EVENT_LOOP_SAMPLE_MS) / 1000, `idle ticks ${minSeconds} s apart: one every ${EVENT_LOOP_SAMPLE_MS} ms`)
  t.ok(EVENT_LOOP_SAMPLE_MS >= 50, 'an idle service wakes at most 20 times a second for the sampler')

  await afterTicks(1)
  const stallMs = 3 * EVENT_LOOP_SAMPLE_MS
  stall(stallMs)
  await afterTicks(0)
  const stalled = await readMetrics(registry)
  // The tick that was due during the stall ran when it ended: at least the stall's length after the tick before it.
  const maxSeconds = valueOf(stalled, 'nodejs_eventloop_lag_max_seconds')
  t.ok(maxSeconds >= stallMs / 1000, `the longest delay, ${maxSeconds} s, covers the stall of ${stallMs} ms`)
})
