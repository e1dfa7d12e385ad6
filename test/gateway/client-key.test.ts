import t from 'tap'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { clientKey } from '../../gateway/http/client-key.ts'

t.test('an IPv4 address is its own client', async (t) => {
  t.equal(clientKey('192.0.2.1'), '192.0.2.1')
  t.not(clientKey('192.0.2.1'), clientKey('192.0.2.2'))
})

t.test('an IPv6 address is its /64 unless configured otherwise', async (t) => {
  t.equal(clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), clientKey('2001:db8:1:2::1'), 'one /64, any host part')
  t.not(clientKey('2001:db8:1:2::1'), clientKey('2001:db8:1:3::1'), 'the next /64')
  t.equal(clientKey('2001:db8:1:2::1', 48), clientKey('2001:db8:1:3::1', 48), 'a /48 spans both')
  t.not(clientKey('2001:db8::1', 128), clientKey('2001:db8::2', 128), 'a /128 is one address')
  t.equal(clientKey('2001:DB8:0:0::9'), clientKey('2001:db8::7'), 'written differently, the same prefix')
  t.equal(clientKey('fe80::1%eth0'), clientKey('fe80::2'), 'a zone id is not part of the client')
})

t.test('an IPv4-mapped IPv6 address is its IPv4 client; anything else stands for itself', async (t) => {
  t.equal(clientKey('::ffff:192.0.2.9'), '192.0.2.9')
  t.equal(clientKey(''), '')
})

t.test('CLIENT_IPV6_PREFIX is read once and bounded', async (t) => {
  t.equal(loadGatewayConfig({}).clientIpv6PrefixBits, 64)
  t.equal(loadGatewayConfig({ CLIENT_IPV6_PREFIX: '56' }).clientIpv6PrefixBits, 56)
  t.throws(() => loadGatewayConfig({ CLIENT_IPV6_PREFIX: '200' }), /CLIENT_IPV6_PREFIX/)
})
