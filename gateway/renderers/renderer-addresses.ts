import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP } from 'node:net'

/** Every address of a host name (A and AAAA). */
export type LookupAll = (hostname: string) => Promise<string[]>

export const lookupAll: LookupAll = async (hostname) => (await dnsLookup(hostname, { all: true })).map((entry) => entry.address)

/** One renderer replica: where to connect, and the Host header it expects. */
export interface RendererAddress {
  /** `http://10.0.0.7:3001`: the connection goes to this address, never to the name. */
  origin: string
  /** `renderer:3001`: the configured name, kept as the Host header. */
  host: string
}

function originOf(url: URL, address: string): string {
  return `${url.protocol}//${isIP(address) === 6 ? `[${address}]` : address}${url.port ? `:${url.port}` : ''}`
}

/** Whether a configured URL names a host to resolve (an IP literal is already one member; TLS needs the name to connect). */
export function needsLookup(url: URL): boolean {
  return url.protocol === 'http:' && isIP(url.hostname.replace(/^\[|\]$/g, '')) === 0
}

/**
 * The replicas behind one configured renderer URL: one DNS name resolving to
 * several addresses (`docker compose --scale renderer=3`) is several members,
 * since one connection pool per name would stay on the first address.
 */
export async function resolveRenderer(url: URL, lookup: LookupAll): Promise<RendererAddress[]> {
  if (!needsLookup(url)) return [{ origin: url.origin, host: url.host }]
  const addresses = [...new Set(await lookup(url.hostname))]
  return addresses.map((address) => ({ origin: originOf(url, address), host: url.host }))
}
