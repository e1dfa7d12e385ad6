import { isIPv4, isIPv6 } from 'node:net'

/** How many leading bits of an IPv6 address name one client, by default: a /64 is what one subscriber is handed. */
export const DEFAULT_CLIENT_IPV6_PREFIX_BITS = 64

/** The sixteen bytes of an IPv6 address (zone id dropped, an embedded IPv4 tail read), or undefined when it is not one. */
function ipv6Bytes(address: string): Uint8Array | undefined {
  const bare = address.replace(/%.*$/, '')
  if (!isIPv6(bare)) return undefined
  let text = bare
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, -tail[0].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, rest] = text.split('::')
  const headGroups = head ? head.split(':') : []
  const restGroups = rest === undefined ? [] : rest ? rest.split(':') : []
  const groups = rest === undefined ? headGroups : [...headGroups, ...new Array<string>(8 - headGroups.length - restGroups.length).fill('0'), ...restGroups]
  const bytes = new Uint8Array(16)
  groups.forEach((group, index) => {
    const value = Number.parseInt(group, 16)
    bytes[index * 2] = value >> 8
    bytes[index * 2 + 1] = value & 0xff
  })
  return bytes
}

/**
 * The client that a budget is charged to: an IPv4 address as it is, an IPv6
 * address by its first `ipv6PrefixBits` bits (anyone with IPv6 has a whole
 * /64 to pick addresses from), and an IPv4-mapped IPv6 address as its IPv4.
 * Anything else (a Unix socket's empty address) is its own client.
 */
export function clientKey(address: string, ipv6PrefixBits: number = DEFAULT_CLIENT_IPV6_PREFIX_BITS): string {
  if (isIPv4(address)) return address
  const bytes = ipv6Bytes(address)
  if (!bytes) return address
  if (bytes.subarray(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.subarray(12).join('.')
  const groups: string[] = []
  for (let index = 0; index < 8; index++) {
    const bitsBefore = index * 16
    const kept = Math.max(0, Math.min(16, ipv6PrefixBits - bitsBefore))
    const value = ((bytes[index * 2] ?? 0) << 8) | (bytes[index * 2 + 1] ?? 0)
    const mask = kept === 0 ? 0 : (0xffff << (16 - kept)) & 0xffff
    groups.push((value & mask).toString(16))
  }
  return `${groups.join(':')}/${ipv6PrefixBits}`
}
