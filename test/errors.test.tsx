import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { renderToStaticMarkup } from 'react-dom/server'
import t from 'tap'
import { loadGatewayConfig } from '../gateway/config.ts'
import { ErrorPage } from '../renderer/app/components/error-page.tsx'
import { type PagePayload, errorPayload } from '../shared/payload.ts'
import { startFaultUpstream, startFaultySystem } from './helpers/fault-upstream.ts'
import { documentTitleOf, h1Of } from './helpers/html.ts'
import { getPage } from './helpers/http.ts'
import { freePort } from './helpers/ports.ts'
import { startSystem } from './helpers/system.ts'

const get = (url: string) => getPage(url)

t.test('upstream answering 500: a Dutch error page with 502', async (t) => {
  const upstream = await startFaultUpstream()
  const system = await startSystem({ CRAFT_API_URL: upstream.url })
  t.teardown(async () => {
    await system.close()
    await upstream.close()
  })
  upstream.behave = () => ({ kind: 'answer', status: 500, body: '<html>Internal Server Error</html>', contentType: 'text/html' })
  const page = await get(`${system.url}/over-ons`)
  t.equal(page.status, 502)
  t.equal(h1Of(page.html), 'Er is iets misgegaan.')
  t.match(page.html, /<html lang="nl"/)
  t.match(page.html, /loading-bar--error/)
  t.notMatch(page.html, /Internal Server Error/, 'nothing of the upstream leaks')
  t.equal(page.headers['cache-control'], 'private, no-store')
})

t.test('upstream unreachable: 502, no hang, no crash', async (t) => {
  const port = await freePort()
  const system = await startSystem({ CRAFT_API_URL: `http://127.0.0.1:${port}/api` })
  t.teardown(() => system.close())
  const page = await get(`${system.url}/kantoren`)
  t.equal(page.status, 502)
  t.equal(h1Of(page.html), 'Er is iets misgegaan.')
  const again = await get(`${system.url}/`)
  t.equal(again.status, 502, 'the gateway is still answering')
})

t.test('upstream too slow: 504 within the configured timeout', async (t) => {
  const timeoutMs = 1000
  const { system, upstream, untilTeardown: never } = await startFaultySystem(t, { UPSTREAM_HEADERS_TIMEOUT_MS: String(timeoutMs) })
  const arrivals: { operation: string | undefined; at: number }[] = []
  upstream.behave = (call) => {
    arrivals.push({ operation: call.operationName, at: performance.now() })
    return { kind: 'hold', until: never }
  }
  const started = performance.now()
  const page = await get(`${system.url}/disclaimer`)
  const elapsed = performance.now() - started
  t.equal(page.status, 504)
  t.equal(h1Of(page.html), 'Er is iets misgegaan.')
  // A bound on behaviour, not a benchmark: one upstream timeout and a wide margin; three in a row (lookup, loaders, retry) exceed it.
  t.ok(elapsed < timeoutMs * 2 + 500, `answered in ${Math.round(elapsed)} ms with a ${timeoutMs} ms upstream timeout`)
  const spread = Math.max(...arrivals.map((a) => a.at)) - Math.min(...arrivals.map((a) => a.at))
  t.ok(spread < timeoutMs / 2, `every call to the CMS started before the first could time out (${Math.round(spread)} ms apart)`)
  t.ok(arrivals.some((a) => a.operation === 'Redirects'), 'the redirect lookup ran alongside')
  t.equal(arrivals.filter((a) => a.operation === 'SiteSettings').length, 1, 'the error page asked nothing more of the failing CMS')
})

t.test('no notFound entry in the CMS: the fixed Dutch heading', async (t) => {
  const source = loadGatewayConfig({}).contentDir
  const dir = mkdtempSync(join(tmpdir(), 'content-'))
  cpSync(source, dir, { recursive: true })
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.json'))) {
    const file = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { entries?: { section: string }[] }
    if (file.entries) file.entries = file.entries.filter((entry) => entry.section !== 'notFound')
    writeFileSync(join(dir, name), JSON.stringify(file))
  }
  const system = await startSystem({ CONTENT_DIR: dir })
  t.teardown(() => system.close())
  const page = await get(`${system.url}/nergens`)
  t.equal(page.status, 404)
  t.equal(h1Of(page.html), '404 - Pagina niet gevonden')
  t.equal(documentTitleOf(page.html)?.split(' | ')[0], '404 - Pagina niet gevonden', "the document's title too, before the brand")
})

t.test('the error page: generic heading, the message only for 500', async (t) => {
  const payload = (statusCode: number): PagePayload =>
    errorPayload({ path: '/x', fullPath: '/x', statusCode, message: 'Rekenfout in premie', preview: false, siteUrl: '' })
  const internal = renderToStaticMarkup(<ErrorPage payload={payload(500)} />)
  t.match(internal, '<h1>Er is iets misgegaan.</h1>')
  t.match(internal, 'Rekenfout in premie', '500 shows the message')
  const gatewayError = renderToStaticMarkup(<ErrorPage payload={payload(503)} />)
  t.match(gatewayError, '<h1>Er is iets misgegaan.</h1>')
  t.notMatch(gatewayError, 'Rekenfout', 'other statuses do not')
})

t.test('no renderer reachable: the gateway answers a Dutch 503 page', async (t) => {
  const port = await freePort()
  const system = await startSystem({ RENDERER_URL: `http://127.0.0.1:${port}` })
  t.teardown(() => system.close())
  const page = await get(`${system.url}/contact`)
  t.equal(page.status, 503)
  t.equal(h1Of(page.html), 'Er is iets misgegaan.')
  t.match(page.html, /<html lang="nl"/)
})
