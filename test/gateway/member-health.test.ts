import t from 'tap'
import { type Member, MemberHealth, type ProbeTimers, newMember } from '../../gateway/renderers/member-health.ts'
import { GiveUp } from '../../gateway/renderers/render-exchange.ts'
import type { CheckOutcome } from '../../gateway/renderers/renderer-requests.ts'
import { RENDERER_PROBE_BACKOFF_START_MS, RENDERER_PROBE_JITTER } from '../../shared/constants.ts'

/**
 * Each member's up, down and suspect state and its probes, with no renderer and no wait: the health check's answer
 * is the test's, and the probes are timers the test fires by hand.
 */

const INTERVAL = 2000

/** Probe timers fired by hand: each member has at most one pending. */
function manualTimers() {
  const pending = new Map<number, { ms: number; callback: () => void }>()
  let id = 0
  const timers: ProbeTimers = {
    setTimeout: (callback, ms) => {
      pending.set(++id, { ms, callback })
      return id
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  }
  return {
    timers,
    /** The delays of the probes scheduled now. */
    delays: () => [...pending.values()].map((entry) => entry.ms),
    /** Runs the one pending probe and lets its check's answer be taken (the fake check answers at once). */
    async fire(): Promise<void> {
      const [entry, ...others] = [...pending.entries()]
      if (!entry || others.length > 0) throw new Error(`one pending probe expected, ${pending.size} found`)
      pending.delete(entry[0])
      entry[1].callback()
      await new Promise((resolve) => setImmediate(resolve))
    },
  }
}

/** A member, its health with manual timers, and what the health told. */
function setUp(random = 0) {
  const probes = manualTimers()
  const member = newMember({ origin: 'http://10.0.0.7:3001', host: 'renderer:3001' }, 'http://renderer:3001/')
  const members: Member[] = [member]
  const answer: { outcome: CheckOutcome } = { outcome: { result: 'passed', build: 'b1', sameProtocol: true } }
  const changes: string[] = []
  const suspects: boolean[] = []
  const health = new MemberHealth({
    probeIntervalMs: INTERVAL,
    ask: async () => answer.outcome,
    isMember: (m) => members.includes(m),
    timers: probes.timers,
    random: () => random,
    onMemberChange: (origin, up, reason) => changes.push(`${origin} ${up ? 'up' : 'down'} ${reason}`),
    onSuspect: (_origin, suspect) => suspects.push(suspect),
  })
  return { probes, member, members, answer, changes, suspects, health }
}

/** A render in flight to the member: what it was given up with, if it was. */
function inFlight(member: Member): { reason: Error | undefined } {
  const seen: { reason: Error | undefined } = { reason: undefined }
  const giveUp = new GiveUp()
  giveUp.attach((reason) => (seen.reason = reason))
  member.inFlight.add(giveUp)
  return seen
}

t.test('a member marked down is skipped, told, and probed soon; a hung one\'s renders are given up, a closing one\'s left', async (t) => {
  const { probes, member, changes, health } = setUp()
  const render = inFlight(member)
  health.markDown(member, 'closing (503)', 'closing')
  t.equal(member.up, false, 'marked down')
  t.same(changes, ['http://10.0.0.7:3001 down closing (503)'])
  t.same(probes.delays(), [RENDERER_PROBE_BACKOFF_START_MS], 'its first probe soon')
  t.equal(render.reason, undefined, 'a closing member\'s render is left to finish')
  t.equal(member.inFlight.size, 1)

  const other = setUp()
  const hungRender = inFlight(other.member)
  other.health.markDown(other.member, 'UND_ERR_HEADERS_TIMEOUT', 'hung')
  t.match(hungRender.reason?.message, /renderer hung: UND_ERR_HEADERS_TIMEOUT/, 'a hung member\'s render is given up')
  t.equal(other.member.inFlight.size, 0)

  health.markDown(member, 'again', 'hung')
  t.same(changes.length, 1, 'down once: a second mark says nothing')
})

t.test('a down member\'s failed probes back off, doubling up to the interval; one that passes puts it back up at the interval', async (t) => {
  const { probes, member, answer, changes, health } = setUp()
  health.markDown(member, 'refused', 'closing')
  answer.outcome = { result: 'failed' }
  const delays: number[] = []
  for (let i = 0; i < 5; i++) {
    await probes.fire()
    delays.push(...probes.delays())
  }
  t.same(delays, [500, 1000, 2000, 2000, 2000], 'doubling, up to the interval')
  t.equal(member.up, false)
  answer.outcome = { result: 'passed', build: 'b2', sameProtocol: false }
  await probes.fire()
  t.equal(member.up, true, 'up once a probe passes')
  t.equal(member.backoffMs, 0)
  t.same(probes.delays(), [INTERVAL], 'and probed at the interval again')
  t.equal(member.build, 'b2', 'the check says its build')
  t.equal(member.sameProtocol, false, 'and its protocol')
  t.same(changes, ['http://10.0.0.7:3001 down refused', 'http://10.0.0.7:3001 up health check passed'])
})

t.test('an up member whose probe goes unanswered is marked down as hung; a down one\'s lost check gives up its renders', async (t) => {
  const { probes, member, answer, changes, health } = setUp()
  health.schedule(member, INTERVAL)
  const render = inFlight(member)
  answer.outcome = { result: 'unanswered' }
  await probes.fire()
  t.equal(member.up, false)
  t.same(changes, ['http://10.0.0.7:3001 down health check unanswered'])
  t.match(render.reason?.message, /renderer hung: health check unanswered/)

  // Down as closing, its renders left to finish: a probe answered by something else says they are lost too.
  const other = setUp()
  other.health.markDown(other.member, 'refused', 'closing')
  const left = inFlight(other.member)
  other.answer.outcome = { result: 'stranger' }
  await other.probes.fire()
  t.match(left.reason?.message, /renderer hung: health check answered by something else/, 'a closing member\'s render is given up once its check is lost')
  t.equal(other.member.inFlight.size, 0)
})

t.test('a down member\'s probe is drawn from the upper part of its delay, so gateways do not probe in step', async (t) => {
  const { probes, member, health } = setUp(1)
  health.markDown(member, 'refused', 'closing')
  t.same(probes.delays(), [Math.round(RENDERER_PROBE_BACKOFF_START_MS * (1 - RENDERER_PROBE_JITTER))])
})

t.test('a suspect member is checked at once; a passing check clears it, a mark down too', async (t) => {
  const { probes, member, suspects, health } = setUp()
  health.schedule(member, INTERVAL)
  health.suspect(member)
  t.equal(member.suspect, true)
  t.same(probes.delays(), [0], 'its check now, in place of the one at the interval')
  t.same(suspects, [true])
  await probes.fire()
  t.equal(member.suspect, false, 'cleared by a passing check')
  t.same(suspects, [true, false])
  t.same(probes.delays(), [INTERVAL])

  health.suspect(member)
  health.markDown(member, 'refused', 'closing')
  t.equal(member.suspect, false, 'down says more: back in turn, it starts clean')
  health.suspect(member)
  t.equal(member.suspect, false, 'a down member is not made suspect')
})

t.test('a member gone from the pool, or a closed health, is probed no more', async (t) => {
  const { probes, member, members, answer, changes, health } = setUp()
  health.schedule(member, INTERVAL)
  members.length = 0
  answer.outcome = { result: 'failed' }
  await probes.fire()
  t.equal(member.up, true, 'its check\'s answer is not taken')
  t.same(probes.delays(), [], 'nor another probe scheduled')
  t.same(changes, [])

  const other = setUp()
  other.health.schedule(other.member, INTERVAL)
  other.health.close(other.members)
  t.same(other.probes.delays(), [], 'closing ends the pending probes')
  other.health.markDown(other.member, 'refused', 'closing')
  t.same(other.probes.delays(), [], 'and none is scheduled after')
})
