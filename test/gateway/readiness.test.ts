import t from 'tap'
import { Readiness, type ReadinessReport } from '../../gateway/health/readiness.ts'

const report = (status: ReadinessReport['status']): ReadinessReport => ({ status, checks: {}, schema: { craftVersion: 5, failing: {} }, builds: { gateway: 'test', renderers: {}, mixed: false } })

/** A readiness on a clock the test moves, whose checks can be held back. */
function counted(cacheMs: number) {
  let clock = 0
  let checks = 0
  let gate: Promise<void> | undefined
  let open = () => {}
  let status: ReadinessReport['status'] = 'ready'
  const readiness = new Readiness({
    cacheMs,
    now: () => clock,
    check: async () => {
      checks++
      await gate
      return report(status)
    },
  })
  return {
    readiness,
    checks: () => checks,
    hold: () => (gate = new Promise<void>((resolve) => (open = resolve))),
    release: () => {
      open()
      gate = undefined
    },
    advance: (ms: number) => (clock += ms),
    answer: (next: ReadinessReport['status']) => (status = next),
  }
}

t.test('300 probes at once share one check', async (t) => {
  const probes = counted(0)
  probes.hold()
  const answers = Promise.all(Array.from({ length: 300 }, () => probes.readiness.current()))
  probes.release()
  const reports = await answers
  t.equal(probes.checks(), 1, 'one check for 300 concurrent probes, even without a cached result')
  t.ok(reports.every((r) => r === reports[0]), 'every probe got its result')
})

t.test('within the interval probes are answered from the last result; after it, a probe checks again', async (t) => {
  const probes = counted(2000)
  t.equal((await probes.readiness.current()).status, 'ready')
  probes.answer('not ready')
  const seen = new Set<string>()
  for (let i = 0; i < 300; i++) {
    probes.advance(6)
    seen.add((await probes.readiness.current()).status)
  }
  t.same([...seen], ['ready'], 'the last result, over 1.8 s')
  t.equal(probes.checks(), 1, '300 sequential probes within the interval cost no check')
  probes.advance(200)
  probes.hold()
  const again = probes.readiness.current()
  t.equal(probes.checks(), 2, 'past the interval a probe checks again')
  probes.release()
  t.equal((await again).status, 'not ready', 'and reports what it found')
})

t.test('the interval counts from the end of a check, so a slow check is not followed at once by another', async (t) => {
  const probes = counted(2000)
  probes.hold()
  const first = probes.readiness.current()
  probes.advance(5000)
  probes.release()
  await first
  probes.advance(1999)
  await probes.readiness.current()
  t.equal(probes.checks(), 1)
})

t.test('a check that throws is not kept: the next probe checks again', async (t) => {
  let calls = 0
  const readiness = new Readiness({
    cacheMs: 60_000,
    check: async () => {
      calls++
      if (calls === 1) throw new Error('boom')
      return report('ready')
    },
  })
  await t.rejects(readiness.current())
  t.equal((await readiness.current()).status, 'ready')
  t.equal(calls, 2)
})
