import { type Socket, connect, createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { request } from 'undici'
import { startRedisServer, tierOf, tierState, within } from '../helpers/redis.ts'
import { startSystem } from '../helpers/system.ts'

/**
 * A gateway cut from its network and connected again gets a new address: its connections to Redis lead nowhere
 * (no reset ever comes), while ioredis still calls them ready. A proxy plays that here: `cut()` leaves every
 * open connection silent and lets new ones through. The gateway must find out and connect again, and /readyz
 * say so, instead of "unreachable" for as long as the old sockets live.
 */
const redis = await startRedisServer()
t.teardown(() => redis.close())

const silenced = new Set<Socket>()
const open = new Set<Socket>()
const proxy = createServer((client) => {
  const upstream = connect(redis.port, '127.0.0.1')
  for (const socket of [client, upstream]) {
    open.add(socket)
    socket.on('error', () => undefined)
    socket.once('close', () => open.delete(socket))
  }
  client.on('data', (chunk: Buffer) => {
    if (!silenced.has(client)) upstream.write(chunk)
  })
  upstream.on('data', (chunk: Buffer) => {
    if (!silenced.has(client)) client.write(chunk)
  })
  client.once('close', () => upstream.destroy())
  upstream.once('close', () => client.destroy())
})
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
t.teardown(() => {
  for (const socket of open) socket.destroy()
  return new Promise<void>((resolve) => proxy.close(() => resolve()))
})
const proxyUrl = `redis://127.0.0.1:${(proxy.address() as AddressInfo).port}`

t.test('connections to Redis that went silent are replaced: lookups and /readyz are back without a restart', async (t) => {
  const system = await startSystem({ REDIS_URL: proxyUrl, REDIS_COMMAND_TIMEOUT_MS: '300', READINESS_CACHE_MS: '0' })
  t.teardown(() => system.close())
  const tier = tierOf(system)
  await tierState(tier, 'up')
  const redisCheck = async (): Promise<string | undefined> => {
    const response = await request(`${system.internalUrl}/readyz`)
    return ((await response.body.json()) as { checks: { redis?: string } }).checks.redis
  }
  t.equal(await redisCheck(), 'ok')

  // The network is back, under a new address: every connection open now leads nowhere.
  for (const socket of open) silenced.add(socket)
  // Readiness probes ask Redis (a PING that times out), as visitors' lookups do.
  t.equal(await redisCheck(), 'unreachable', 'at first the silent connection fails its check')
  const back = await within(20_000, async () => (await redisCheck()) === 'ok' && (await tier.ping()), 100)
  t.ok(back !== undefined, '/readyz says redis ok again, and Redis answers the gateway')
  t.ok(tier.up, 'redis_up is 1 on connections that work')
})
