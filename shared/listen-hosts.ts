import { lookup } from 'node:dns/promises'
import { createServer, type Server } from 'node:http'
import { BlockList, isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import { setTimeout as pause } from 'node:timers/promises'
import { ConfigError } from './errors.ts'

/** How long a `@name` may take to resolve to one of this machine's addresses (Swarm registers a task's name as it starts). */
const OWN_ADDRESS_WAIT_MS = 15_000
const OWN_ADDRESS_RETRY_MS = 250

/**
 * The addresses a listener setting (HOST, INTERNAL_HOST, RENDERER_HOST) stands for: a comma-separated list of
 * addresses or host names, taken as they are, and `@` entries: `@10.231.1.0/24` is this machine's own address in
 * that subnet, `@name` its own address among those `name` resolves to. In a container, `@<the edge network's
 * subnet>` is the container's address on that network, so the port answers there and on no other network.
 * (A network alias would do under compose, but Swarm puts a task in its service's DNS only once it is healthy,
 * after the listener had to open.)
 */
export async function resolveListenHosts(setting: string, waitMs = OWN_ADDRESS_WAIT_MS, sources: AddressSources = SYSTEM_SOURCES): Promise<string[]> {
  const hosts: string[] = []
  for (const entry of listEntries(setting)) hosts.push(entry.startsWith('@') ? await ownAddressOf(entry.slice(1), waitMs, sources) : entry)
  if (hosts.length === 0) throw new ConfigError(`"${setting}" names no address to listen on`)
  return [...new Set(hosts)]
}

/**
 * The addresses a setting stands for now, without waiting: an `@` entry with no address of this machine at the
 * moment (its network cut, its name not yet registered) is left out rather than an error.
 */
export async function resolveListenHostsNow(setting: string, sources: AddressSources = SYSTEM_SOURCES): Promise<string[]> {
  const hosts: string[] = []
  for (const entry of listEntries(setting)) {
    if (!entry.startsWith('@')) hosts.push(entry)
    else {
      const own = await ownAddressOf(entry.slice(1), 0, sources).catch((error: unknown) => {
        if (error instanceof ConfigError) return undefined
        throw error
      })
      if (own) hosts.push(own)
    }
  }
  return [...new Set(hosts)]
}

/** Whether a setting has entries that stand for this machine's addresses of the moment (`@subnet`, `@name`). */
export function followsAddresses(setting: string): boolean {
  return listEntries(setting).some((entry) => entry.startsWith('@'))
}

/** Where the machine's own addresses and a name's addresses come from: the system's, or a test's stand-ins. */
export interface AddressSources {
  ownAddresses(): Array<{ address: string; family: string }>
  lookup(name: string): Promise<Array<{ address: string }>>
}

export const SYSTEM_SOURCES: AddressSources = {
  ownAddresses: () => Object.values(networkInterfaces()).flatMap((list) => list ?? []),
  lookup: (name) => lookup(name, { all: true }),
}

function listEntries(setting: string): string[] {
  return setting.split(',').map((entry) => entry.trim()).filter(Boolean)
}

/** `@10.231.1.0/24`: this machine's address in that subnet (the address of its interface on that network). */
function ownAddressIn(cidr: string, sources: AddressSources): string {
  const [base = '', bits = ''] = cidr.split('/')
  const family = isIP(base)
  if (family === 0 || !/^[0-9]{1,3}$/.test(bits)) throw new ConfigError(`@${cidr} is not a subnet`)
  const subnet = new BlockList()
  subnet.addSubnet(base, Number(bits), family === 6 ? 'ipv6' : 'ipv4')
  const found = sources.ownAddresses().find((entry) => entry.family === (family === 6 ? 'IPv6' : 'IPv4') && subnet.check(entry.address, family === 6 ? 'ipv6' : 'ipv4'))
  if (!found) throw new ConfigError(`@${cidr}: this machine has no address in that subnet`)
  return found.address
}

async function ownAddressOf(name: string, waitMs: number, sources: AddressSources): Promise<string> {
  if (name.includes('/')) return ownAddressIn(name, sources)
  const deadline = Date.now() + waitMs
  for (;;) {
    const own = new Set(sources.ownAddresses().map((entry) => entry.address))
    const resolved = await sources.lookup(name).catch(() => [])
    const found = resolved.find((entry) => own.has(entry.address))
    if (found) return found.address
    if (Date.now() >= deadline) {
      throw new ConfigError(`@${name}: none of its addresses (${resolved.map((entry) => entry.address).join(', ') || 'none'}) is this machine's`)
    }
    await pause(OWN_ADDRESS_RETRY_MS)
  }
}

/**
 * Another listener for an app's server on `host`: a plain server whose requests and upgrades go to the app's own
 * server, with its timeouts. The returned function stops it taking connections and closes its idle ones; requests
 * in flight finish as the app's own do (the process exits once the app has closed).
 */
export async function listenAlso(server: Server, host: string, port: number): Promise<() => void> {
  const also = createServer()
  also.keepAliveTimeout = server.keepAliveTimeout
  also.headersTimeout = server.headersTimeout
  also.requestTimeout = server.requestTimeout
  also.on('request', (request, response) => server.emit('request', request, response))
  also.on('upgrade', (request, socket, head) => server.emit('upgrade', request, socket, head))
  await new Promise<void>((resolve, reject) => {
    also.once('error', reject)
    also.listen({ host, port }, () => {
      also.off('error', reject)
      resolve()
    })
  })
  return () => {
    also.close()
    also.closeIdleConnections()
  }
}
