import t from 'tap'
import { request } from 'undici'
import { payloadJson } from '../gateway/payload/payload-json.ts'
import { DEFERRED_SCRIPT_ID } from '../renderer/app/document-ids.ts'
import { PAYLOAD_SUFFIX, REQUEST_ID_HEADER } from '../shared/constants.ts'
import type { PagePayload } from '../shared/payload.ts'
import { RENDER_REQUEST_CONTENT_TYPE, decodeRenderRequest, encodeRenderRequest } from '../shared/render-protocol/index.ts'
import { RenderSigner } from '../shared/render-protocol/index.ts'
import { signedHeaders } from './helpers/render-signing.ts'
import { startSystem } from './helpers/system.ts'

const system = await startSystem({ PAGE_CACHE: 'false', LOG_LEVEL: 'debug' })
t.teardown(() => system.close())

const signer = new RenderSigner(system.renderSecret ?? '')

/** A render request sent to the renderer as the gateway sends it, signed. */
function postRender(path: string, body: string, headers: Record<string, string> = {}) {
  return request(`${system.rendererUrl}${path}`, {
    method: 'POST',
    headers: signedHeaders(signer, 'POST', path, { ...headers, 'content-type': RENDER_REQUEST_CONTENT_TYPE }, body),
    body,
  })
}

/** Paths the gateway was asked for under one request id (the renderer passes the page's id on): its 'incoming request' lines, at debug. */
function gatewayPathsOf(requestId: string): string[] {
  return system.gatewayLogs.lines
    .filter((line) => line.requestId === requestId && line.msg === 'incoming request')
    .map((line) => String((line.req as { url?: string } | undefined)?.url ?? ''))
    .filter((url) => !url.startsWith('/cms/'))
}

async function primaryAndDeferred(path: string): Promise<{ primary: PagePayload; deferred: Record<string, unknown> }> {
  const base = path === '/' ? '' : path
  const primary = (await (await request(`${system.url}${base}${PAYLOAD_SUFFIX}?part=primary`)).body.json()) as PagePayload
  const rest = (await (await request(`${system.url}${base}${PAYLOAD_SUFFIX}?part=deferred`)).body.json()) as PagePayload
  return { primary, deferred: rest.data }
}

t.test('a page whose data is all cached is rendered from the data the gateway hands over, whole', async (t) => {
  await (await request(`${system.url}/`)).body.dump()
  const response = await request(`${system.url}/`, { headers: { [REQUEST_ID_HEADER]: 'whole-home-1' } })
  const html = await response.body.text()
  t.equal(response.statusCode, 200)
  t.same(gatewayPathsOf('whole-home-1'), ['/'], 'the renderer asked the gateway for no payload')
  t.match(html, /data-loaded="true"/, 'the latest news is in the page')
  t.notMatch(html, /<!--\$\?-->/, 'no boundary left pending')
  t.notMatch(html, /<script(?![^>]*\b(?:src|type)=)[^>]*>/, 'no inline script: nothing streams in later')
  t.match(html, /<script type="module" src="\/assets\/[^"]+" nonce="[^"]+"><\/script><\/body>/, 'the bundle runs after the document is parsed')
  const nonce = /nonce="([^"]+)"/.exec(html)?.[1]
  t.match(String(response.headers['content-security-policy']), `'nonce-${nonce}'`, 'under the answer\'s nonce')
})

t.test('a page with pending data is still streamed: the renderer asks for the deferred part itself', async (t) => {
  system.gateway.cache.purge()
  const response = await request(`${system.url}/`, { headers: { [REQUEST_ID_HEADER]: 'streamed-home-1' } })
  const html = await response.body.text()
  t.equal(response.statusCode, 200)
  t.match(html, /data-loaded="true"/)
  t.same(gatewayPathsOf('streamed-home-1').filter((url) => url.includes(PAYLOAD_SUFFIX)), [`${PAYLOAD_SUFFIX}?part=deferred`], 'only the deferred part, by the renderer')
})

t.test('the renderer renders a render request as the gateway sends it, and refuses what is not one', async (t) => {
  const { primary, deferred } = await primaryAndDeferred('/')
  const body = encodeRenderRequest(payloadJson(primary), ['havenborgHome', 'entry:101'], JSON.stringify(deferred))
  const rendered = await postRender('/', body)
  const html = await rendered.body.text()
  t.equal(rendered.statusCode, 200)
  t.equal(rendered.headers['x-render-outcome'], 'complete', 'a page rendered whole says so in a header')
  t.equal(rendered.headers['x-render-tags'], 'havenborgHome,entry:101', 'and the tags of the data it showed')
  t.match(html, /data-loaded="true"/)

  for (const bad of ['', 'not json', '{"path":"/"}\n[]', payloadJson(primary), `${payloadJson(primary)}\n[1,2]`, `${payloadJson(primary)}\n["a,b"]`, `${payloadJson(primary)}\n[]\n[1,2]`, `${JSON.stringify({ ...primary, status: '200' })}\n[]`]) {
    const refused = await postRender('/', bad)
    t.equal(refused.statusCode, 400, `refused: ${bad.slice(0, 20) || '(empty)'}`)
    t.match(await refused.body.json(), { errors: [{ extensions: { code: 'BAD_REQUEST' } }] })
  }
})

t.test('a boundary that fails in the whole render is rendered again by the streaming path, which reports it', async (t) => {
  const { primary } = await primaryAndDeferred('/')
  // An article without a title or uri breaks the latest-news block inside its Suspense boundary.
  const broken = JSON.stringify({ latestArticles: { entries: [null] } })
  const rendered = await postRender('/', encodeRenderRequest(payloadJson(primary), [], broken), { [REQUEST_ID_HEADER]: 'broken-boundary-1' })
  await rendered.body.text()
  t.equal(rendered.statusCode, 500, 'not a 200 with the failure hidden')
  t.ok(
    system.rendererLogs.lines.some((line) => line.requestId === 'broken-boundary-1' && line.msg === 'render error'),
    'the error is logged',
  )
})

t.test('the payload line is embedded as it came, made script-safe whatever the sender did', async (t) => {
  const { primary } = await primaryAndDeferred('/over-ons')
  const hostile = { ...primary, fullPath: '/over-ons?x=</script><script>alert(1)</script>\u2028' }
  const decoded = decodeRenderRequest(encodeRenderRequest(JSON.stringify(hostile), []))
  t.ok(decoded)
  t.notMatch(decoded?.payloadJson ?? '', /<|\u2028/, 'no < or line separator left raw')
  t.same(JSON.parse(decoded?.payloadJson ?? ''), hostile, 'the same value')
  const rendered = await postRender('/over-ons', encodeRenderRequest(JSON.stringify(hostile), []))
  const html = await rendered.body.text()
  t.equal(rendered.statusCode, 200)
  t.notMatch(html, /<script>alert/, 'the payload cannot end its script element')
})

t.test("the home page's deferred data is script-safe JSON too: no <, U+2028 or U+2029 left raw", async (t) => {
  const { primary, deferred } = await primaryAndDeferred('/')
  const articles = (deferred.latestArticles as { entries: Record<string, unknown>[] }).entries
  t.ok(articles.length > 0, 'the home page has latest news')
  const hostileTitle = 'Nieuws\u2028met</script><script>alert(1)</script>\u2029scheiding'
  const hostile = { ...deferred, latestArticles: { entries: articles.map((article, index) => (index === 0 ? { ...article, title: hostileTitle } : article)) } }
  const rendered = await postRender('/', encodeRenderRequest(payloadJson(primary), [], JSON.stringify(hostile)))
  const html = await rendered.body.text()
  t.equal(rendered.statusCode, 200)
  const script = new RegExp(`<script type="application/json" id="${DEFERRED_SCRIPT_ID}">(.*?)</script>`, 's').exec(html)?.[1]
  t.ok(script, 'the deferred data is in the page')
  t.notMatch(script ?? '', /[<\u2028\u2029]/, 'no <, line or paragraph separator left raw')
  t.match(script ?? '', '\\u2028', 'the line separator escaped')
  t.same(JSON.parse(script ?? 'null'), hostile, 'the same value')
  t.notMatch(html, /<script>alert/, 'the data cannot end its script element')
})

t.test('payload JSON from the memo: the same value as JSON.stringify, serialised once per cached answer', async (t) => {
  const { primary } = await primaryAndDeferred('/over-ons')
  const text = payloadJson(primary)
  t.same(JSON.parse(text), primary)
  // Cached answers are never changed: a data object's JSON is made once and reused, which a change would show.
  const about = primary.data.page as Record<string, unknown>
  about.changedAfterwards = true
  t.equal(payloadJson(primary), text, 'the data object is not serialised again')
  delete about.changedAfterwards
  const payload = (await (await request(`${system.url}/over-ons${PAYLOAD_SUFFIX}`)).body.json()) as PagePayload
  t.same(payload, primary, 'the payload route answers the same value')
  const data = { a: { html: '<p>x</p>' } }
  const withRichText = payloadJson({ ...primary, data })
  t.notMatch(withRichText, /</, 'rich text stays script-safe')
  t.same(JSON.parse(withRichText), { ...primary, data })
})
