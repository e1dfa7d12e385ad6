import t, { type Test } from 'tap'
import { request } from 'undici'
import { payloadJson } from '../../gateway/payload/payload-json.ts'
import { buildRenderer } from '../../renderer/server/app.ts'
import { loadRendererConfig } from '../../renderer/config.ts'
import { DEFERRED_SCRIPT_ID, PAYLOAD_SCRIPT_ID } from '../../renderer/app/document-ids.ts'
import { PAYLOAD_SUFFIX } from '../../shared/constants.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION, RENDER_REQUEST_CONTENT_TYPE, encodeRenderRequest } from '../../shared/render-protocol/index.ts'
import { RenderSigner } from '../../shared/render-protocol/index.ts'
import { listenOnLoopback } from '../helpers/ports.ts'
import { signedHeaders } from '../helpers/render-signing.ts'
import { startSystem } from '../helpers/system.ts'

// Rich text is sanitised where it enters the renderer, whoever sent it: a posted render request or a fetched payload.

const HOSTILE = '<p>Welkom bij ons</p><script>alert(1)</script><img src="x" onerror="alert(2)"><a href="javascript:alert(3)">klik</a>'
const DANGER = /<script>alert|script>alert|onerror|javascript:/

const system = await startSystem({ PAGE_CACHE: 'false' })
t.teardown(() => system.close())
const signer = new RenderSigner(system.renderSecret ?? '')
const rendererUrl = (() => {
  const address = system.renderer.server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
})()

async function part(path: string, name: string): Promise<PagePayload> {
  return (await (await request(`${system.url}${path === '/' ? '' : path}${PAYLOAD_SUFFIX}?part=${name}`)).body.json()) as PagePayload
}

/** The home page's payload and deferred data with rich text an attacker chose, in the page's own text and in the latest news. */
async function hostileHome(): Promise<{ primary: PagePayload; deferred: Record<string, unknown> }> {
  const primary = await part('/', 'primary')
  const page = primary.data.page as { entry: Record<string, unknown> }
  const deferred = (await part('/', 'deferred')).data
  const news = deferred.latestArticles as Record<string, unknown>
  return {
    primary: { ...primary, data: { ...primary.data, page: { ...page, entry: { ...page.entry, text: HOSTILE } } } },
    deferred: { ...deferred, latestArticles: { ...news, text: HOSTILE } },
  }
}

function scriptText(html: string, id: string): string {
  const match = new RegExp(`<script type="application/json" id="${id}"[^>]*>([\\s\\S]*?)</script>`).exec(html)
  return match?.[1] ?? ''
}

function postRender(path: string, body: string) {
  return request(`${rendererUrl}${path}`, {
    method: 'POST',
    headers: signedHeaders(signer, 'POST', path, { 'content-type': RENDER_REQUEST_CONTENT_TYPE }, body),
    body,
  })
}

t.test('rich text in a posted render request is sanitised, in the page and in the scripts it hydrates from', async (t) => {
  const { primary, deferred } = await hostileHome()
  const response = await postRender('/', encodeRenderRequest(payloadJson(primary), [], JSON.stringify(deferred)))
  const html = await response.body.text()
  t.equal(response.statusCode, 200)
  t.notMatch(html, DANGER, 'no script, handler or javascript: link anywhere')
  t.match(html, '<p>Welkom bij ons</p>', 'the allowed markup stays')
  const embedded = JSON.parse(scriptText(html, PAYLOAD_SCRIPT_ID)) as PagePayload
  const text = (embedded.data.page as { entry: { text: string } }).entry.text
  t.match(text, '<p>Welkom bij ons</p>')
  t.notMatch(text, DANGER, 'the payload script is the cleaned payload')
  t.notMatch(scriptText(html, DEFERRED_SCRIPT_ID), DANGER, 'the deferred data is cleaned too')
})

t.test('a clean render request is embedded as it came, not serialised again', async (t) => {
  const primary = await part('/over-ons', 'primary')
  // A space JSON.stringify never writes: it survives only if the line is embedded as it came.
  const line = payloadJson(primary).replace(/^\{/, '{ ')
  const response = await postRender('/over-ons', encodeRenderRequest(line, []))
  const html = await response.body.text()
  t.equal(response.statusCode, 200)
  t.equal(scriptText(html, PAYLOAD_SCRIPT_ID), line)
})

/** A gateway that answers every payload request with the hostile home page's parts. */
async function hostileGateway(t: Test, primary: PagePayload, deferred: Record<string, unknown>): Promise<string> {
  const port = await listenOnLoopback(t, (req, res) => {
    const wanted = new URL(req.url ?? '/', 'http://gateway.invalid').searchParams.get('part')
    const payload = wanted === 'deferred' ? { ...primary, pending: [], data: deferred } : primary
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload))
  })
  return `http://127.0.0.1:${port}`
}

t.test('rich text in the deferred data the renderer fetches is sanitised too, the payload it was sent as well', async (t) => {
  const { primary, deferred } = await hostileHome()
  const gatewayUrl = await hostileGateway(t, primary, deferred)
  const renderer = await buildRenderer(loadRendererConfig({ GATEWAY_URL: gatewayUrl, RENDER_SECRET: '', LOG_LEVEL: 'silent' }))
  t.teardown(() => renderer.close())
  const headers = { 'content-type': RENDER_REQUEST_CONTENT_TYPE, [RENDER_PROTOCOL_HEADER]: RENDER_PROTOCOL_VERSION }
  const response = await renderer.inject({ method: 'POST', url: '/', headers, payload: encodeRenderRequest(JSON.stringify(primary), []) })
  t.equal(response.statusCode, 200)
  t.notMatch(response.body, DANGER)
  t.match(response.body, '<p>Welkom bij ons</p>')
  t.match(response.body, 'data-loaded="true"', 'the deferred part was fetched and rendered')
})
