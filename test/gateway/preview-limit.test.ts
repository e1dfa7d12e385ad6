import t from 'tap'
import { Agent, request } from 'undici'
import { startFaultUpstream } from '../helpers/fault-upstream.ts'
import { h1Of } from '../helpers/html.ts'
import { type System, startSystem } from '../helpers/system.ts'

// What one client's junk tokens may cost: previews are counted per address, everything else comes from the caches.
const LIMIT = 6
const upstream = await startFaultUpstream()
const system = await startSystem({ CRAFT_API_URL: upstream.url, PREVIEW_RATE_LIMIT: String(LIMIT) })
// Loopback is a /8: each agent is another client address.
const clients = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'].map((localAddress) => new Agent({ localAddress }))
t.teardown(async () => {
  await Promise.all(clients.map((agent) => agent.close()))
  await system.close()
  await upstream.close()
})

let counter = 0
const get = async (path: string, options: { client?: Agent; headers?: Record<string, string>; target?: System } = {}) => {
  const requestId = `preview-limit-${++counter}`
  const response = await request(`${(options.target ?? system).url}${path}`, {
    headers: { 'x-request-id': requestId, ...options.headers },
    ...(options.client ? { dispatcher: options.client } : {}),
  })
  return { status: response.statusCode, headers: response.headers, body: await response.body.text(), requestId }
}
const callsOf = (requestId: string): number => upstream.calls.filter((call) => call.requestId === requestId).length

t.test('preview pages and payloads are limited per client address, then 429 with a Dutch page or a JSON error', async (t) => {
  const [client, other] = clients as [Agent, Agent]
  const junk = (n: number): string => `/kantoren?x-craft-preview=1&token=junk-token-${n}`
  for (let n = 0; n < LIMIT - 1; n++) t.equal((await get(junk(n), { client })).status, 200, `preview ${n + 1} is rendered`)
  t.equal((await get('/kantoren/_payload.json', { client, headers: { cookie: 'craft_token=junk-cookie' } })).status, 200, 'a preview payload counts too')

  const refused = await get(junk(99), { client })
  t.equal(refused.status, 429)
  t.match(refused.headers['content-type'], /^text\/html/)
  t.match(refused.body, /voorbeeldpagina/, 'the Dutch page says why')
  t.match(refused.headers['retry-after'], /^\d+$/)
  t.equal(refused.headers['cache-control'], 'private, no-store')
  t.ok(refused.headers['content-security-policy'], 'with the CSP every answer has')
  t.equal(callsOf(refused.requestId), 0, 'and it cost the CMS nothing')

  const payload = await get('/kantoren/_payload.json', { client, headers: { 'x-craft-token': 'junk-header' } })
  t.equal(payload.status, 429)
  t.same(JSON.parse(payload.body).errors[0].extensions.code, 'RATE_LIMITED')
  t.equal(callsOf(payload.requestId), 0)

  t.equal((await get(junk(100), { client: other })).status, 200, 'another address still previews')
  const live = await get('/kantoren', { client, headers: { cookie: 'craft_token=not.usable' } })
  t.equal(live.status, 200, 'the limited client still gets the live pages')
})

t.test('junk tokens that are no preview cost the CMS nothing, however many', async (t) => {
  const client = clients[2]
  await get('/actueel', { client })
  await get('/actueel/_payload.json', { client })
  const before = upstream.calls.length
  const junk = [
    (n: number) => get(`/actueel?token=junk-${n}`, { client }),
    (n: number) => get(`/actueel?x-craft-preview=1&token=no.good.${n}`, { client }),
    (n: number) => get('/actueel', { client, headers: { cookie: `craft_token=bad~${n}` } }),
    (n: number) => get(`/actueel/_payload.json?token=junk-${n}`, { client }),
    (n: number) => get('/actueel/_payload.json', { client, headers: { 'x-craft-token': `bad token ${n}` } }),
  ]
  for (let n = 0; n < 40; n++) {
    for (const ask of junk) {
      const answer = await ask(n)
      t.equal(answer.status, 200)
      if (answer.status !== 200) return
    }
  }
  t.equal(upstream.calls.length - before, 0, '200 junk requests, no CMS call')
  t.equal(system.gateway.pageCache.size, 1, 'and one page stored, under the plain address')
})

