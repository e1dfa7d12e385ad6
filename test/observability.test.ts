import t from 'tap'
import { request } from 'undici'
import { REFUSED_URL } from './helpers/ports.ts'
import { startSystem } from './helpers/system.ts'

const system = await startSystem()
t.teardown(() => system.close())
const text = async (url: string) => {
  const response = await request(url)
  return { status: response.statusCode, body: await response.body.text(), type: String(response.headers['content-type']) }
}

t.test('health and readiness of both services', async (t) => {
  t.equal((await text(`${system.url}/healthz`)).status, 200)
  const ready = await text(`${system.internalUrl}/readyz`)
  t.equal(ready.status, 200)
  t.same(JSON.parse(ready.body).checks, { renderer: 'ok', upstream: 'ok', schema: 'ok' })
  t.equal((await text(`${system.rendererUrl}/healthz`)).status, 200)
  const rendererReady = await text(`${system.rendererUrl}/readyz`)
  t.same(JSON.parse(rendererReady.body).checks, { gateway: 'ok' })
})

t.test('readiness fails when the renderer is gone', async (t) => {
  const other = await startSystem({ RENDERER_URL: REFUSED_URL })
  t.teardown(() => other.close())
  const ready = await text(`${other.internalUrl}/readyz`)
  t.equal(ready.status, 503)
  t.equal(JSON.parse(ready.body).checks.renderer, 'unreachable')
})

t.test('Prometheus metrics: requests, cache results, upstream latency, render time', async (t) => {
  await text(`${system.url}/over-ons`)
  await text(`${system.url}/over-ons`)
  await text(`${system.url}/over-ons/_payload.json`)
  const gateway = await text(`${system.internalUrl}/metrics`)
  t.match(gateway.type, /text\/plain/)
  t.match(gateway.body, /http_requests_total\{route="\/\*",method="GET",status="200",service="gateway"\} \d+/)
  t.match(gateway.body, /cache_lookups_total\{cache="page",result="HIT",service="gateway"\} [1-9]/)
  t.match(gateway.body, /cache_lookups_total\{cache="query",result="(MISS|HIT)",service="gateway"\} [1-9]/)
  t.match(gateway.body, /upstream_request_duration_seconds_count\{[^}]*outcome="ok"[^}]*\} [1-9]/)
  const renderer = await text(`${system.rendererUrl}/metrics`)
  t.match(renderer.body, /render_duration_seconds_count\{[^}]*status="200"[^}]*\} [1-9]/)
})
