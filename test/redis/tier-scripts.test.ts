import { Redis } from 'ioredis'
import t from 'tap'
import { withTierCommands } from '../../gateway/cache/shared-tier/scripts.ts'
import { startRedisServer } from '../helpers/redis.ts'

// The shared tier's Lua scripts on a real redis-server, without gateways: what each leaves in Redis.

const redis = await startRedisServer()
const command = withTierCommands(new Redis(redis.url, { maxRetriesPerRequest: 1 }))
t.teardown(async () => {
  command.disconnect()
  await redis.close()
})

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

/** storeEntry as the tier calls it: the entry, its lock and the purge epoch, then its tag sets; the epoch the flight began in, the value, its lifetime, the member the sets name, the lock's token. */
const store = (name: string, tags: string[], lifetimeMs: number, options: { epoch?: string; token?: string } = {}) =>
  command.storeEntry(3 + tags.length, `v:${name}`, `l:${name}`, 'epoch', ...tags.map((tag) => `t:${tag}`), options.epoch ?? '0', `value of ${name}`, lifetimeMs, name, options.token ?? 'token')

t.test('a tag set expires with the longest-lived entry it names: set on creation, extended, never shortened', async (t) => {
  await store('page', ['jobs', 'entry:1'], MINUTE)
  t.equal(await command.get('v:page'), 'value of page')
  for (const tag of ['jobs', 'entry:1']) {
    t.same(await command.smembers(`t:${tag}`), ['page'], `${tag} names the entry`)
    const ttl = await command.pttl(`t:${tag}`)
    t.ok(ttl > 0 && ttl <= MINUTE, `a new set expires with its entry (${ttl} ms): never a set that lives for ever`)
  }
  await store('answer', ['jobs'], DAY)
  const extended = await command.pttl('t:jobs')
  t.ok(extended > MINUTE && extended <= DAY, `a longer-lived entry extends it (${extended} ms)`)
  t.same((await command.smembers('t:jobs')).sort(), ['answer', 'page'])
  await store('short', ['jobs'], MINUTE)
  const kept = await command.pttl('t:jobs')
  t.ok(kept > MINUTE, `a shorter-lived one does not shorten it (${kept} ms)`)
  const entryTtl = await command.pttl('v:short')
  t.ok(entryTtl > 0 && entryTtl <= MINUTE, 'the entry itself lives its own lifetime')
})

t.test('nothing is stored when a purge came after the flight began; the lock is freed only when it is still the flight’s', async (t) => {
  await command.set('epoch', '3')
  await command.set('l:late', 'late-token')
  await store('late', ['late-tag'], MINUTE, { epoch: '2', token: 'late-token' })
  t.equal(await command.exists('v:late', 't:late-tag'), 0, 'neither the entry nor its tag set')
  t.equal(await command.exists('l:late'), 0, 'its lock is freed all the same')
  await command.set('l:taken', 'other-token')
  await store('taken', ['taken-tag'], MINUTE, { epoch: '3', token: 'my-token' })
  t.equal(await command.get('v:taken'), 'value of taken', 'stored in the current epoch')
  t.equal(await command.get('l:taken'), 'other-token', "another flight's lock is left alone")
  await command.del('epoch')
})

t.test("a lock is settled, renewed or dropped only while it is the flight's own", async (t) => {
  await command.set('l:settle', 'mine')
  await command.settleLock('l:settle', 'other', 'Aanswer', MINUTE)
  t.equal(await command.get('l:settle'), 'mine', "settled by another flight's token: left alone")
  await command.settleLock('l:settle', 'mine', 'Aanswer', MINUTE)
  t.equal(await command.get('l:settle'), 'Aanswer', 'settled by its own: the outcome replaces it')
  const ttl = await command.pttl('l:settle')
  t.ok(ttl > 0 && ttl <= MINUTE, 'for the time given')
  await command.set('l:gone', 'mine')
  await command.settleLock('l:gone', 'mine', '', MINUTE)
  t.equal(await command.exists('l:gone'), 0, 'no outcome: the lock goes')

  await command.set('l:renew', 'mine', 'PX', 1000)
  t.equal(await command.renewLock('l:renew', 'other', DAY), 0, "another's token renews nothing")
  t.ok((await command.pttl('l:renew')) <= 1000)
  t.equal(await command.renewLock('l:renew', 'mine', DAY), 1, 'its own token renews it')
  t.ok((await command.pttl('l:renew')) > MINUTE)

  await command.set('v:drop', 'refused')
  await command.dropEntry('v:drop', 'stored since')
  t.equal(await command.get('v:drop'), 'refused', 'an entry stored since it was read is kept')
  await command.dropEntry('v:drop', 'refused')
  t.equal(await command.exists('v:drop'), 0, 'the entry read is dropped')
})

t.test('a purge by tags drops their entries and sets, bumps the epoch and announces it', async (t) => {
  await command.set('epoch', '7')
  await store('one', ['purged-tag'], MINUTE, { epoch: '7' })
  await store('two', ['purged-tag', 'kept-tag'], MINUTE, { epoch: '7' })
  await store('three', ['kept-tag'], MINUTE, { epoch: '7' })
  const listener = new Redis(redis.url, { maxRetriesPerRequest: 1 })
  t.teardown(() => listener.disconnect())
  await listener.subscribe('purges')
  const announced = new Promise<string>((resolve) => listener.once('message', (_channel: string, message: string) => resolve(message)))
  t.equal(await command.purgeTags(2, 'epoch', 't:purged-tag', 'v:', 'purges', '{"epoch":'), 2, 'how many entries went')
  t.equal(await command.exists('v:one', 'v:two', 't:purged-tag'), 0, 'its entries and its set')
  t.equal(await command.get('v:three'), 'value of three', 'an entry of another tag stays')
  t.equal(await command.get('epoch'), '8', 'the epoch bumped')
  t.equal(await announced, '{"epoch":8}', 'and announced')
  await command.del('epoch')
})
