import t from 'tap'
import { type Member, newMember } from '../../gateway/renderers/member-health.ts'
import { LookupFailureLog, refreshMembers } from '../../gateway/renderers/member-refresh.ts'
import type { LookupAll } from '../../gateway/renderers/renderer-addresses.ts'
import { DNS_FAILURE_LOG_INTERVAL_MS } from '../../shared/constants.ts'

/** The pool's members after a DNS look-up round, with the test's own look-up and clock: nothing is resolved for real. */

const URL_A = new URL('http://renderer:3001')
const URL_B = new URL('http://other.internal:3002')

/** A look-up answering from `table` by host name; a name not in it fails as ENOTFOUND. */
function lookupFrom(table: Record<string, string[]>): LookupAll {
  return async (hostname) => {
    const addresses = table[hostname]
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    return addresses
  }
}

const silent = () => new LookupFailureLog(() => 0, undefined)
const origins = (members: readonly Member[]) => members.map((member) => member.origin)

t.test('every address of a name is a member; a known one keeps its state, one that left is gone, a new one is added', async (t) => {
  const first = await refreshMembers([URL_A], () => [], lookupFrom({ renderer: ['10.0.0.1', '10.0.0.2', '10.0.0.1'] }), silent())
  t.same(origins(first.members), ['http://10.0.0.1:3001', 'http://10.0.0.2:3001'], 'one member per address, each once')
  t.same(origins(first.added), origins(first.members), 'all new')
  t.same(first.gone, [])
  t.ok(first.members.every((member) => member.up && member.host === 'renderer:3001' && member.source === URL_A.href), 'new members start up, with the name as their host')

  const [kept] = first.members as [Member, Member]
  kept.up = false
  kept.build = 'b1'
  const second = await refreshMembers([URL_A], () => first.members, lookupFrom({ renderer: ['10.0.0.1', '10.0.0.3'] }), silent())
  t.same(origins(second.members), ['http://10.0.0.1:3001', 'http://10.0.0.3:3001'])
  t.equal(second.members[0], kept, 'a known address is the same member')
  t.equal(kept.up, false, 'with its state')
  t.same(origins(second.added), ['http://10.0.0.3:3001'])
  t.same(origins(second.gone), ['http://10.0.0.2:3001'])
  t.same(second.failures, [])
})

t.test('two configured URLs at one address are one member', async (t) => {
  const round = await refreshMembers([URL_A, new URL('http://renderer:3001/again')], () => [], lookupFrom({ renderer: ['10.0.0.1'] }), silent())
  t.same(origins(round.members), ['http://10.0.0.1:3001'])
})

t.test('a name that does not resolve keeps its last addresses, or its name when it never resolved; the failure is reported', async (t) => {
  const known = [newMember({ origin: 'http://10.0.0.1:3001', host: 'renderer:3001' }, URL_A.href)]
  const round = await refreshMembers([URL_A, URL_B], () => known, lookupFrom({}), silent())
  t.same(origins(round.members), ['http://10.0.0.1:3001', 'http://other.internal:3002'])
  t.equal(round.members[0], known[0], 'the last address, the same member')
  t.same(origins(round.added), ['http://other.internal:3002'], 'the name kept, so renders fail as ENOTFOUND until a look-up fixes it')
  t.same(round.gone, [])
  t.same(round.failures.map((failure) => failure.url), [URL_A.href, URL_B.href])
  t.match(round.failures[0]?.error, { code: 'ENOTFOUND' })
})

t.test('a host name that does not resolve is told at most once per interval per host', async (t) => {
  let clock = 1_000_000
  const told: string[] = []
  const log = new LookupFailureLog(() => clock, (host) => told.push(host))
  const lookup = lookupFrom({})
  for (let i = 0; i < 3; i++) await refreshMembers([URL_A, URL_B], () => [], lookup, log)
  t.same(told.sort(), ['other.internal', 'renderer'], 'each host once, however often it fails')
  clock += DNS_FAILURE_LOG_INTERVAL_MS - 1
  await refreshMembers([URL_A], () => [], lookup, log)
  t.equal(told.length, 2, 'not again within the interval')
  clock += 1
  await refreshMembers([URL_A], () => [], lookup, log)
  t.same(told, ['other.internal', 'renderer', 'renderer'], 'again once it has passed, for the host that failed')
  clock += 1
  await refreshMembers([URL_A], () => [], lookup, log)
  t.equal(told.length, 3, 'and the interval starts again from then')
})
