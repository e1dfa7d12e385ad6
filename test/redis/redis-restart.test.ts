import t from 'tap'
import { request } from 'undici'
import { purge } from '../helpers/http.ts'
import { PAIR_PURGE_SECRET, nextEvent, startSharedPair, tierOf, tierState } from '../helpers/redis.ts'

/**
 * Redis killed (kill -9) and started again empty, as Swarm restarts it without persistence: no purge went
 * through the new Redis, so the gateways keep what their memory holds and serve it at full speed. Emptying it
 * (as for purges missed while disconnected) made every gateway render every page again at once.
 */
const pair = await startSharedPair()
t.teardown(() => pair.close())
const tiers = [tierOf(pair.a), tierOf(pair.b)]

const cacheOf = async (base: string, path: string): Promise<string> => {
  const response = await request(`${base}${path}`)
  await response.body.dump()
  return String(response.headers['x-cache'])
}

t.test('a Redis that comes back empty after kill -9: memory is kept, pages are still hits', async (t) => {
  await Promise.all(tiers.map((tier) => tierState(tier, 'up')))
  // A purge before: the old Redis's epoch is 1, the new one has none.
  const heard = nextEvent(tiers[1]!, 'purge', 'b hears the purge')
  await purge(pair.a.url, { tags: ['jobs'] }, { secret: PAIR_PURGE_SECRET })
  await heard
  for (const system of [pair.a, pair.b]) {
    await cacheOf(system.url, '/kantoren')
    t.equal(await cacheOf(system.url, '/kantoren'), 'HIT', 'stored in memory')
  }
  const down = Promise.all(tiers.map((tier) => tierState(tier, 'down')))
  await pair.redis.stop('SIGKILL')
  await down
  const caughtUp = Promise.all(tiers.map((tier) => nextEvent(tier, 'caughtUp', 'the subscription back and the epoch read')))
  await pair.redis.start()
  t.same(await caughtUp, [['kept'], ['kept']], 'both gateways keep their memory')
  for (const system of [pair.a, pair.b]) t.equal(await cacheOf(system.url, '/kantoren'), 'HIT', 'still a hit after redis came back')
})
