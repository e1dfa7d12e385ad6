import { lookup } from 'node:dns/promises'
import { createServer, type Server } from 'node:http'
import { networkInterfaces } from 'node:os'
import { setTimeout as pause } from 'node:timers/promises'
import { ConfigError } from './env.ts'

/** How long a `@name` may take to resolve to one of this machine's addresses (Swarm registers a task's name as it starts). */
const OWN_ADDRESS_WAIT_MS = 15_000
const OWN_ADDRESS_RETRY_MS = 250

/**
 * The addresses a listener setting (HOST, INTERNAL_HOST, RENDERER_HOST) stands for: a comma-separated list of
 * addresses or host names, taken as they are, and `@name` entries, each standing for this machine's own address
 * among those `name` resolves to. In a container, `@gateway-edge` (a network alias that only the edge network
 * knows) is the container's address on that network, so the port answers there and on no other network.
 */
export async function resolveListenHosts(setting: string, waitMs = OWN_ADDRESS_WAIT_MS): Promise<string[]> {
  const entries = setting.split(',').map((entry) => entry.trim()).filter(Boolean)
  const hosts: string[] = []
  for (const entry of entries) hosts.push(entry.startsWith('@') ? await ownAddressOf(entry.slice(1), waitMs) : entry)
  if (hosts.length === 0) throw new ConfigError(`"${setting}" names no address to listen on`)
  return [...new Set(hosts)]
}

async function ownAddressOf(name: string, waitMs: number): Promise<string> {
  const deadline = Date.now() + waitMs
  for (;;) {
    const own = new Set(Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address)))
    const resolved = await lookup(name, { all: true }).catch(() => [])
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
