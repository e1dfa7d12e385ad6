import t from 'tap'
import { request } from 'undici'
import type { AddressInfo } from 'node:net'
import { addressesChanged } from '../../gateway/listeners.ts'
import { FollowedListeners } from '../../shared/followed-listeners.ts'
import { type AddressSources, resolveListenHosts } from '../../shared/listen-hosts.ts'
import { bounded, nextEvent, startRedisServer, tierOf, tierState } from '../helpers/redis.ts'
import { startSystem } from '../helpers/system.ts'

// A gateway cut from a network and connected again gets a new address there (docker network disconnect/connect):
// HOST's `@subnet` must follow it. Loopback addresses stand for the network's: this machine's own addresses are a
// list the test changes, as Docker changes the container's interfaces.

/** This machine's addresses as the test says, for `@subnet` entries (a name resolves to itself). */
function standInSources(addresses: string[]): AddressSources & { addresses: string[] } {
  const sources = {
    addresses,
    ownAddresses: () => sources.addresses.map((address) => ({ address, family: 'IPv4' })),
    lookup: async (name: string) => [{ address: name }],
  }
  return sources
}

const answers = async (url: string): Promise<boolean> => {
  try {
    // A connection of its own each time (no keep-alive): a pooled one would outlive its listener.
    const response = await request(url, { reset: true })
    await response.body.dump()
    return response.statusCode === 200
  } catch (error) {
    if ((error as { code?: string }).code === 'ECONNREFUSED') return false
    throw error
  }
}

t.test('HOST=127.0.0.1,@127.0.0.0/8: the address in the subnet changes, the port answers on the new one and no longer on the old', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const port = (system.gateway.server.address() as AddressInfo).port
  const setting = '127.0.0.1,@127.0.0.0/8'
  const sources = standInSources(['127.0.0.2'])
  const listeners = new FollowedListeners({ server: system.gateway.server, setting, appHost: '127.0.0.1', port, intervalMs: 10, log: system.gateway.log, sources })
  t.teardown(() => listeners.close())
  await listeners.start(await resolveListenHosts(setting, 0, sources))
  t.ok(await answers(`http://127.0.0.2:${port}/healthz`), 'the address found at start answers')

  const changed = new Promise<string[]>((resolve) => listeners.once('change', resolve))
  sources.addresses = ['127.0.0.3']
  t.same(await bounded(changed, 'a change of the listeners'), ['127.0.0.1', '127.0.0.3'], 'the listeners follow the new address')
  t.ok(await answers(`http://127.0.0.3:${port}/healthz`), 'the new address answers')
  t.ok(await answers(`http://127.0.0.3:${port}/over-ons`), 'pages too: the same gateway behind it')
  t.notOk(await answers(`http://127.0.0.2:${port}/healthz`), 'the old address, no longer this machine\'s, is closed')
  t.ok(await answers(`http://127.0.0.1:${port}/healthz`), 'the literal address stays')

  listeners.close()
  t.notOk(await answers(`http://127.0.0.3:${port}/healthz`), 'closed with the app')
})

t.test('a name that stops resolving to a still-own address keeps its listener (Swarm leaves an unhealthy task out of the name)', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const port = (system.gateway.server.address() as AddressInfo).port
  const sources = standInSources(['127.0.0.4'])
  let resolvesTo = '127.0.0.4'
  sources.lookup = async () => [{ address: resolvesTo }]
  const listeners = new FollowedListeners({ server: system.gateway.server, setting: '127.0.0.1,@gateway', appHost: '127.0.0.1', port, intervalMs: 0, log: system.gateway.log, sources })
  t.teardown(() => listeners.close())
  await listeners.start(await resolveListenHosts('127.0.0.1,@gateway', 0, sources))
  resolvesTo = '198.51.100.7'
  await listeners.recheck()
  t.same(listeners.hosts, ['127.0.0.1', '127.0.0.4'])
  t.ok(await answers(`http://127.0.0.4:${port}/healthz`))
})

t.test('new addresses: Redis connections start again and /readyz reports Redis as it is now, not its last check', async (t) => {
  const redis = await startRedisServer()
  t.teardown(() => redis.close())
  const system = await startSystem({ REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '2000', READINESS_CACHE_MS: '60000' })
  t.teardown(() => system.close())
  const tier = tierOf(system)
  await tierState(tier, 'up')
  const port = (system.gateway.server.address() as AddressInfo).port
  const sources = standInSources(['127.0.0.5'])
  const listeners = new FollowedListeners({ server: system.gateway.server, setting: '127.0.0.1,@127.0.0.0/8', appHost: '127.0.0.1', port, intervalMs: 0, log: system.gateway.log, sources })
  t.teardown(() => listeners.close())
  // As runServer wires it for the gateway (gateway/server.ts).
  listeners.on('change', () => addressesChanged(system.gateway))
  await listeners.start(['127.0.0.1', '127.0.0.5'])

  const readyz = async () => JSON.parse(await (await request(`${system.internalUrl}/readyz`)).body.text()) as { checks: Record<string, string> }
  t.equal((await readyz()).checks.redis, 'ok')

  const down = nextEvent(tier, 'down', 'the old connections dropped')
  sources.addresses = ['127.0.0.6']
  await listeners.recheck()
  await down
  await tierState(tier, 'up', 'new connections up')

  // Redis gone while the last readiness result (kept a minute here) said ok.
  t.equal((await readyz()).checks.redis, 'ok', 'checked again after the change, Redis up')
  await redis.stop('SIGKILL')
  await tierState(tier, 'down')
  sources.addresses = ['127.0.0.7']
  await listeners.recheck()
  t.equal((await readyz()).checks.redis, 'unreachable', 'the next probe after a change checks again')
})
