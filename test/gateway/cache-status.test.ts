import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { startFaultySystem } from '../helpers/fault-upstream.ts'
import { REFUSED_URL } from '../helpers/ports.ts'
import { startSystem } from '../helpers/system.ts'

const operations = createOperations(DEFAULT_SITE_HANDLE)

async function call(url: string, options: { method?: 'GET' | 'POST'; body?: string; contentType?: string } = {}) {
  const response = await request(url, {
    method: options.method ?? 'GET',
    body: options.body,
    headers: options.contentType ? { 'content-type': options.contentType } : {},
  })
  await response.body.dump()
  return { status: response.statusCode, cache: response.headers['x-cache'] }
}

t.test('answers that never touched a cache say BYPASS: errors, redirects, rendered error pages', async (t) => {
  const system = await startSystem({
    API_RATE_LIMIT: '6',
    REDIRECTS: JSON.stringify([{ from: '/oude-pagina', to: '/over-ons', statusCode: 301 }]),
  })
  t.teardown(() => system.close())
  const api = `${system.url}/api`
  const json = 'application/json'

  t.same(await call(api, { method: 'POST', body: JSON.stringify({ query: '{ __schema { types { name } } }' }), contentType: json }), { status: 400, cache: 'BYPASS' }, 'operation not allowed')
  t.same(await call(api, { method: 'POST', body: '{"query":', contentType: json }), { status: 400, cache: 'BYPASS' }, 'malformed JSON')
  t.same(await call(api, { method: 'POST', body: 'query=x', contentType: 'text/plain' }), { status: 415, cache: 'BYPASS' }, 'wrong content type')
  t.same(await call(api, { method: 'POST', body: JSON.stringify({ query: 'x'.repeat(70 * 1024) }), contentType: json }), { status: 413, cache: 'BYPASS' }, 'body too long')
  let limited = { status: 0, cache: undefined as unknown }
  for (let i = 0; i < 6 && limited.status !== 429; i++) limited = await call(api, { method: 'POST', body: '{}', contentType: json })
  t.same(limited, { status: 429, cache: 'BYPASS' }, 'rate limited')

  t.same(await call(`${system.url}/oude-pagina`), { status: 301, cache: 'BYPASS' }, 'a redirect')
  t.same(await call(`${system.url}/kantoren/`), { status: 301, cache: 'BYPASS' }, 'the trailing-slash redirect')
  t.same(await call(`${system.url}/nergens-te-vinden`), { status: 404, cache: 'MISS' }, 'the one 404 page, rendered and stored')
  t.same(await call(`${system.url}/ook-nergens`), { status: 404, cache: 'HIT' }, 'the stored 404 page, for any unknown path')
  t.same(await call(`${system.url}/kantoren/_payload.json?part=nonsense`), { status: 400, cache: 'BYPASS' }, 'a bad payload request')
  t.same(await call(`${system.url}/kantoren`), { status: 200, cache: 'MISS' }, 'a page that will be stored')
  t.same(await call(`${system.url}/kantoren`), { status: 200, cache: 'HIT' })
})

t.test('upstream failures on /api say BYPASS: 502 and 504', async (t) => {
  // An answering upstream is never taken for a slow one on a loaded machine.
  const { system, upstream, untilTeardown: never } = await startFaultySystem(t, { UPSTREAM_HEADERS_TIMEOUT_MS: '1000' })
  const body = JSON.stringify({ query: operations.JobList, variables: { site: DEFAULT_SITE_HANDLE } })
  upstream.behave = () => ({ kind: 'answer', status: 500, body: '<html>down</html>', contentType: 'text/html' })
  t.same(await call(`${system.url}/api`, { method: 'POST', body, contentType: 'application/json' }), { status: 502, cache: 'BYPASS' })
  upstream.behave = () => ({ kind: 'hold', until: never })
  t.same(await call(`${system.url}/api`, { method: 'POST', body, contentType: 'application/json' }), { status: 504, cache: 'BYPASS' })
})

t.test('the gateway\'s own 503 page when no renderer answers says BYPASS', async (t) => {
  const system = await startSystem({ RENDERER_URL: REFUSED_URL })
  t.teardown(() => system.close())
  t.same(await call(`${system.url}/contact`), { status: 503, cache: 'BYPASS' })
})
