import type { IncomingMessage } from 'node:http'
import type { TLSSocket } from 'node:tls'
import proxyAddr from '@fastify/proxy-addr'

/** Whose X-Forwarded-For and -Proto the gateway believes: the nearest `hops` proxies (0: none), or proxies at these addresses. */
export type TrustProxy = { hops: number } | { addresses: string[] }

/** proxy-addr's trust rule, as Fastify applies it: `hop` 0 is the socket's peer, 1 the rightmost X-Forwarded-For entry, and so on. */
export type TrustFunction = (address: string, hop: number) => boolean

const privatePeer = proxyAddr.compile(['loopback', 'linklocal', 'uniquelocal'])

/** Throws proxy-addr's TypeError for an address or CIDR it cannot read. */
export function checkProxyAddress(address: string): void {
  proxyAddr.compile(address)
}

/**
 * The rule for Fastify's `trustProxy` and for the page-cache fast path, so
 * both find the same client. Fastify no longer accepts a bare hop count,
 * because with one a client that reaches the gateway directly could claim
 * any address; here the nearest proxy must at least be on a private network
 * (loopback, link-local, 10/8, 172.16/12, 192.168/16, fc00::/7), where only
 * the deployment's own machines are.
 */
export function trustFunction(trust: TrustProxy): TrustFunction | undefined {
  if ('addresses' in trust) return proxyAddr.compile(trust.addresses)
  const { hops } = trust
  if (hops === 0) return undefined
  return (address, hop) => hop < hops && (hop > 0 || privatePeer(address, hop))
}

/** HTTPS as Fastify's `request.protocol` finds it: the last X-Forwarded-Proto entry, believed only from a trusted peer. */
export function isHttps(request: IncomingMessage, trust: TrustFunction | undefined): boolean {
  const forwarded = request.headers['x-forwarded-proto']
  // The peer's address is looked up only when there is a forwarded protocol to believe or not.
  if (forwarded && trust) {
    const peer = request.socket.remoteAddress
    if (peer !== undefined && trust(peer, 0)) {
      const value = String(forwarded)
      return value.slice(value.lastIndexOf(',') + 1).trim() === 'https'
    }
  }
  return (request.socket as TLSSocket).encrypted === true
}
