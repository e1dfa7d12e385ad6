import { Redis } from 'ioredis'
import t from 'tap'
import { request } from 'undici'
import { queryCacheKey } from '../../shared/cache-key.ts'
import { DEFAULT_SITE_HANDLE, SERVICES_PER_PAGE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { bounded, nextEvent, startSharedPair, tierOf, tierState } from '../helpers/redis.ts'

/**
 * Issue 31, item 5: a lock command that timed out in a gateway while Redis was
 * paused (SIGSTOP) still runs when Redis resumes. Nobody works on that lock, so
 * another gateway that misses the key must not wait REDIS_LOCK_MS for it: set to
 * 30 s here, past the tests' give-up bound, so that waiting for it fails the test.
 * Commands time out after 1 s: only the pause makes them, not a loaded machine.
 */
const pair = await startSharedPair({ REDIS_LOCK_MS: '30000', REDIS_COMMAND_TIMEOUT_MS: '1000' })
t.teardown(() => pair.close())
// /services's first page of the list, with the variables its route asks it with (shared/routes.ts: paged since the bounded pages).
const key = queryCacheKey(createOperations(DEFAULT_SITE_HANDLE).ServiceList, { site: DEFAULT_SITE_HANDLE, limit: SERVICES_PER_PAGE, offset: 0 })
const lockKey = `${DEFAULT_SITE_HANDLE}:l:${key}`

const payload = async (base: string, path: string) => {
  const response = await request(`${base}${path}/_payload.json`)
  return { status: response.statusCode, cache: response.headers['x-cache'], text: await response.body.text() }
}

/** Resolves when Redis next sets `watched` (keyspace notifications, subscribed before the cause). */
async function nextSetOf(watched: string): Promise<{ seen: Promise<void>; close: () => void }> {
  await pair.redis.client.config('SET', 'notify-keyspace-events', 'K$')
  const subscriber = new Redis(pair.redis.url)
  subscriber.on('error', () => undefined)
  const channel = `__keyspace@0__:${watched}`
  await subscriber.subscribe(channel)
  const seen = new Promise<void>((resolve) => {
    subscriber.on('message', (from: string, event: string) => {
      if (from === channel && event === 'set') resolve()
    })
  })
  return { seen: bounded(seen, `redis sets ${watched}`), close: () => subscriber.disconnect() }
}

t.test('a lock taken by a command that timed out during a pause does not hold the other gateway', async (t) => {
  const [a, b] = [pair.a, pair.b]
  await Promise.all([tierState(tierOf(a), 'up'), tierState(tierOf(b), 'up')])
  // The site's settings in both gateways' memory: the list of services is then the one key a payload misses.
  for (const system of [a, b]) t.equal((await payload(system.url, '/over-ons')).status, 200, 'a page read before the pause')
  const lockSet = await nextSetOf(lockKey)
  t.teardown(lockSet.close)

  const pid = pair.redis.pid()
  const timedOut = nextEvent(tierOf(a), 'failure', 'a redis command timed out', (error) => error.message === 'Command timed out')
  process.kill(pid, 'SIGSTOP')
  let duringPause
  try {
    duringPause = await payload(a.url, '/services')
    await timedOut
  } finally {
    process.kill(pid, 'SIGCONT')
  }
  t.equal(duringPause.status, 200, 'the gateway answered during the pause')
  t.equal(duringPause.cache, 'MISS', 'from the CMS, past Redis')
  t.equal(pair.callsOf('ServiceList'), 1, 'one CMS call so far')
  await lockSet.seen
  t.pass('the lock command that timed out ran in Redis once it resumed')

  const tookLock = nextEvent(tierOf(b), 'locked', 'the other gateway takes the lock', (lockedKey) => lockedKey === key)
  const after = await bounded(payload(b.url, '/services'), 'the other gateway answers')
  await tookLock
  t.equal(after.status, 200, 'the other gateway answered')
  t.equal(after.cache, 'MISS', 'from the CMS, under a lock of its own')
  t.equal(pair.callsOf('ServiceList'), 2, 'it asked the CMS itself instead of waiting REDIS_LOCK_MS on the stray lock')
})
