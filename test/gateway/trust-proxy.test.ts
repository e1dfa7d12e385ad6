import t from 'tap'
import { request } from 'undici'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { type System, startSystem } from '../helpers/system.ts'

const LIMIT = 3
// Behind one proxy; and behind proxies listed by address, none of them on loopback where the tests connect from.
const hops = await startSystem({ TRUST_PROXY: '1', API_RATE_LIMIT: String(LIMIT) })
const listed = await startSystem({ TRUST_PROXY: '10.0.0.0/8', API_RATE_LIMIT: String(LIMIT) })
t.teardown(async () => {
  await hops.close()
  await listed.close()
})

/** The status of a cheap /api call (400: no query) or 429 once the client is limited. */
const apiStatus = async (system: System, forwardedFor: string): Promise<number> => {
  const response = await request(`${system.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor }, body: '{}' })
  await response.body.dump()
  return response.statusCode
}
/** The same call from another peer address (inject), for peers the tests cannot connect from. */
const apiStatusFrom = async (system: System, peer: string, forwardedFor: string): Promise<number> => {
  const response = await system.gateway.inject({
    method: 'POST',
    url: '/api',
    remoteAddress: peer,
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    payload: '{}',
  })
  return response.statusCode
}
const limitedAfter = (count: number): number[] => [...Array(count).fill(400), 429, 429]

t.test('TRUST_PROXY=1: only the rightmost X-Forwarded-For entry is the client, however the entries before it rotate', async (t) => {
  const rotating: number[] = []
  for (let i = 0; i < LIMIT + 2; i++) rotating.push(await apiStatus(hops, `10.9.${i}.1, 198.51.100.${i}, 192.0.2.50`))
  t.same(rotating, limitedAfter(LIMIT), 'one client, one limit')
  t.equal(await apiStatus(hops, '192.0.2.51'), 400, 'another client behind the proxy has a limit of its own')

  const direct: number[] = []
  for (let i = 0; i < LIMIT + 2; i++) direct.push(await apiStatusFrom(hops, '203.0.113.9', `192.0.2.${100 + i}`))
  t.same(direct, limitedAfter(LIMIT), 'a peer on a public network is no proxy: its X-Forwarded-For is ignored')
})

t.test('TRUST_PROXY=<addresses>: a peer not on the list cannot set its address; a listed proxy can', async (t) => {
  const untrusted: number[] = []
  for (let i = 0; i < LIMIT + 2; i++) untrusted.push(await apiStatus(listed, `198.51.100.${i}`))
  t.same(untrusted, limitedAfter(LIMIT), 'from loopback, not listed: X-Forwarded-For is ignored')

  const viaProxy: number[] = []
  for (let i = 0; i < LIMIT + 2; i++) viaProxy.push(await apiStatusFrom(listed, '10.1.2.3', `192.0.2.${i}, 192.0.2.60`))
  t.same(viaProxy, limitedAfter(LIMIT), 'through a listed proxy: the forwarded client is limited')
  t.equal(await apiStatusFrom(listed, '10.1.2.3', '192.0.2.61'), 400, 'and another forwarded client is not')
})

t.test('HTTPS from X-Forwarded-Proto by the same rule on the page-cache fast path as on rendered pages', async (t) => {
  const get = async (system: System, proto: string) => {
    const response = await request(`${system.url}/kantoren`, { headers: { 'x-forwarded-proto': proto } })
    await response.body.dump()
    return { cache: response.headers['x-cache'], hsts: response.headers['strict-transport-security'] !== undefined }
  }
  t.same(await get(hops, 'https'), { cache: 'MISS', hsts: true }, 'behind the proxy: rendered with HSTS')
  t.same(await get(hops, 'https'), { cache: 'HIT', hsts: true }, 'and from the fast path with HSTS')
  t.same(await get(hops, 'https, http'), { cache: 'HIT', hsts: false }, 'the last entry counts, as in Fastify')

  t.same(await get(listed, 'https'), { cache: 'MISS', hsts: false }, 'an untrusted peer: rendered without HSTS')
  t.same(await get(listed, 'https'), { cache: 'HIT', hsts: false }, 'and from the fast path without HSTS')
})

t.test('TRUST_PROXY takes a hop count or proxy addresses; true is refused', async (t) => {
  t.throws(() => loadGatewayConfig({ TRUST_PROXY: 'true' }), { name: 'ConfigError', message: /number of proxies .* or their addresses/ })
  for (const none of [{}, { TRUST_PROXY: 'false' }, { TRUST_PROXY: '0' }]) t.same(loadGatewayConfig(none).trustProxy, { hops: 0 }, `${JSON.stringify(none)}: none`)
  t.same(loadGatewayConfig({ TRUST_PROXY: '2' }).trustProxy, { hops: 2 })
  t.same(loadGatewayConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.1' }).trustProxy, { addresses: ['10.0.0.0/8', '192.168.1.1'] })
  t.throws(() => loadGatewayConfig({ TRUST_PROXY: '10.0.0.0/8,nginx' }), { name: 'ConfigError', message: /"nginx"/ })
})

t.test('an IPv6 client is its /64: addresses of one prefix share one limit, another prefix has its own', async (t) => {
  const sameprefix: number[] = []
  for (let i = 0; i < LIMIT + 2; i++) sameprefix.push(await apiStatus(hops, `2001:db8:5:7::${(i + 1).toString(16)}:${i}`))
  t.same(sameprefix, limitedAfter(LIMIT), 'rotating the last 64 bits does not make a new client')
  t.equal(await apiStatus(hops, '2001:db8:5:8::1'), 400, 'the next /64 is another client')
  t.equal(await apiStatus(hops, '::ffff:192.0.2.77'), 400, 'an IPv4-mapped address is its IPv4 client')
})
