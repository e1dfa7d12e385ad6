import t from 'tap'
import type { LoadedEntry } from '../../gateway/cache/query-cache.ts'
import { bounded, nextEvent, startRedisServer, startTierPair } from '../helpers/redis.ts'
import { until } from '../helpers/until.ts'

/**
 * The lock of a key is a short lease that the gateway holding it renews while
 * its CMS call runs, and that only its holder releases. REDIS_LOCK_MS (lockMs)
 * is set far beyond the tests' give-up bound: a waiter held for it fails them.
 */
const redis = await startRedisServer()
t.teardown(() => redis.close())
const PREFIX = 'lease-test:'

const { holder, waiter } = await startTierPair(t, redis, { lockMs: 60_000, keyPrefix: PREFIX })

const rules = { isFresh: () => true, accepts: () => true }
const answer = (text: string): LoadedEntry => {
  const raw = Buffer.from(JSON.stringify({ data: { text } }))
  return { answer: { status: 200, body: JSON.parse(raw.toString()) as LoadedEntry['answer']['body'], raw }, fetchedAt: Date.now(), tags: [], storable: true }
}
const lockOf = (key: string) => redis.client.get(`${PREFIX}l:${key}`)

t.test('a holder renews its lease while its CMS call runs: the waiter does not take over', async (t) => {
  const key = 'renewed'
  let renewals = 0
  const counted = (renewedKey: string) => {
    if (renewedKey === key) renewals++
  }
  holder.on('renewed', counted)
  t.teardown(() => holder.off('renewed', counted))
  let waiterLoaded = false
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const locked = nextEvent(holder, 'locked', 'the holder locks the key', (lockedKey) => lockedKey === key)
  const held = holder.loadOnce(key, rules, async () => {
    await released
    return answer('from the holder')
  })
  await locked
  const waiting = nextEvent(waiter, 'waiting', 'the waiter waits on the lock', (waitedKey) => waitedKey === key)
  const waited = waiter.loadOnce(key, rules, async () => {
    waiterLoaded = true
    return answer('from the waiter')
  })
  await waiting
  // Renewals come RENEW_MS (100 ms) apart at the soonest: ten of them outlast the 500 ms lease twice over.
  await until(
    () => renewals >= 10 || waiterLoaded,
    () => `ten renewals of the lease, or the waiter loading (renewals: ${renewals})`,
  )
  t.notOk(waiterLoaded, 'the waiter did not take over a lock whose holder works on it')
  t.ok(renewals >= 10, `the holder renewed its lease (${renewals} times) past the lease's own length`)
  release()
  const [mine, theirs] = await bounded(Promise.all([held, waited]), 'both loads end')
  t.equal(mine.entry.answer.raw.toString(), '{"data":{"text":"from the holder"}}', 'the holder got its own answer')
  t.equal(theirs.entry.answer.raw.toString(), '{"data":{"text":"from the holder"}}', "the waiter got the holder's answer")
  t.ok(theirs.fromShared, 'through redis')
  t.equal(await lockOf(key), null, 'the holder released its lock')
})

t.test('a lock is released only by the one that took it', async (t) => {
  for (const outcome of ['an answer', 'an error'] as const) {
    const key = `owned-${outcome.replace(' ', '-')}`
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const locked = nextEvent(holder, 'locked', 'the holder locks the key', (lockedKey) => lockedKey === key)
    const held = holder.loadOnce(key, rules, async () => {
      await released
      if (outcome === 'an error') throw new Error('the CMS failed')
      return answer('late')
    })
    await locked
    // The holder's lease lapsed (a stalled gateway) and another gateway took the lock meanwhile.
    t.equal(await redis.client.set(`${PREFIX}l:${key}`, 'Lthe-next-holder', 'PX', 60_000, 'XX'), 'OK', 'the lock handed on by hand')
    release()
    await held.then(
      () => undefined,
      () => undefined,
    )
    t.equal(await lockOf(key), 'Lthe-next-holder', `the first holder, ending with ${outcome}, left the next holder's lock alone`)
    t.equal(await redis.client.pttl(`${PREFIX}l:${key}`) > 30_000, true, 'and did not shorten it')
    await redis.client.del(`${PREFIX}l:${key}`)
  }
})
