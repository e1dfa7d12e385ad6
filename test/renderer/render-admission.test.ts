import { type IncomingHttpHeaders, request as httpRequest } from 'node:http'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { payloadJson } from '../../gateway/payload/payload-json.ts'
import { loadRendererConfig } from '../../renderer/config.ts'
import { GatewayClient } from '../../renderer/server/gateway-client.ts'
import { CRAFT_TOKEN_HEADER, PAYLOAD_SUFFIX, RENDER_SIGNATURE_HEADER, REQUEST_ID_HEADER } from '../../shared/constants.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION, RENDER_REQUEST_CONTENT_TYPE, RenderSigner, encodeRenderRequest } from '../../shared/render-protocol/index.ts'
import { h1Of } from '../helpers/html.ts'
import { listenOnLoopback } from '../helpers/ports.ts'
import { signedHeaders } from '../helpers/render-signing.ts'
import { type System, startSystem } from '../helpers/system.ts'

// The renderer renders only for its gateway: signed render requests (RENDER_SECRET) for plain site paths, with data from the gateway's origin alone.

interface Listener {
  port: number
  /** Request targets it was sent, as they came. */
  seen: string[]
}

/** Another origin (or a stand-in gateway): records every request and answers it with a page's payload. */
async function listener(t: Test): Promise<Listener> {
  const seen: string[] = []
  const port = await listenOnLoopback(t, (req, res) => {
    seen.push(req.url ?? '')
    const payload = { path: '/steal', fullPath: '/steal', routeId: null, screen: 'error', status: 200, data: {}, pending: [], page: 1, preview: false, siteUrl: '', canonicalPath: null }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload))
  })
  return { port, seen }
}

function rendererPort(system: System): number {
  const address = system.renderer.server.address()
  return typeof address === 'object' && address ? address.port : 0
}

/** A request with its target sent byte for byte (undici's URL parser would tidy `/\` and `//`). */
function rawRequest(port: number, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }))
    })
    sent.on('error', reject)
    sent.end(body)
  })
}

/** The render request of a page as the gateway sends it: its payload (asked of the gateway) and no tags. */
async function renderBodyOf(system: System, path: string): Promise<string> {
  const primary = (await (await request(`${system.url}${path}${PAYLOAD_SUFFIX}?part=primary`)).body.json()) as PagePayload
  return encodeRenderRequest(payloadJson(primary), [])
}

/** A render request's headers in this release's protocol, for one sent unsigned. */
const POST = { 'content-type': RENDER_REQUEST_CONTENT_TYPE, [RENDER_PROTOCOL_HEADER]: RENDER_PROTOCOL_VERSION }

/** Whether the gateway saw any request under this request id (the renderer passes the id on when it fetches): its 'incoming request' line, at debug. */
function gatewaySaw(system: System, requestId: string): boolean {
  return system.gatewayLogs.lines.some((line) => line.requestId === requestId && line.msg === 'incoming request')
}

for (const signing of [true, false]) {
  t.test(`paths that are not plain site paths get 400 before anything is fetched (${signing ? 'signed' : 'RENDER_SECRET unset'})`, async (t) => {
    const system = await startSystem({ PAGE_CACHE: 'false', LOG_LEVEL: 'debug', ...(signing ? {} : { RENDER_SECRET: '' }) })
    t.teardown(() => system.close())
    t.equal(system.renderSecret !== undefined, signing)
    const signer = system.renderSecret === undefined ? undefined : new RenderSigner(system.renderSecret)
    const other = await listener(t)
    const elsewhere = `127.0.0.1:${other.port}`
    const bad = [
      `//${elsewhere}/steal`,
      `/\\${elsewhere}/x`,
      `/%5C${elsewhere}/x`,
      `/over\\ons`,
      '/over-ons%00',
      '/over-ons%0d%0aset-cookie:x=1',
      '/over-ons%7f',
      '/%ff',
      '/over-ons%',
      '/over-ons?q=%E0%A4%A',
      `/${'a'.repeat(1024)}`,
    ]
    const body = await renderBodyOf(system, '/over-ons')
    for (const [index, path] of bad.entries()) {
      const requestId = `bad-path-${signing}-${index}`
      const headers: Record<string, string> = { ...POST, [CRAFT_TOKEN_HEADER]: 'visitors-token', [REQUEST_ID_HEADER]: requestId }
      const answer = await rawRequest(rendererPort(system), 'POST', path, signer ? signedHeaders(signer, 'POST', path, headers, body) : headers, body)
      t.equal(answer.status, 400, `POST ${path.slice(0, 40)}`)
      t.match(JSON.parse(answer.text), { errors: [{ extensions: { code: 'BAD_REQUEST' } }] })
      t.notOk(gatewaySaw(system, requestId), 'the gateway was not asked either')
    }
    t.same(other.seen, [], 'the other origin got no request')
  })
}

t.test('the renderer asks its gateway alone, whatever path it is handed', async (t) => {
  const gateway = await listener(t)
  const other = await listener(t)
  const client = new GatewayClient(new URL(`http://127.0.0.1:${gateway.port}/some/base/`), 2000)
  t.teardown(() => client.close())
  const elsewhere = `127.0.0.1:${other.port}`
  for (const path of [`//${elsewhere}/steal`, `/\\${elsewhere}/x`]) {
    await client.payload({ path, search: '?a=1', part: 'primary', requestId: 'r1', token: 'visitors-token' })
  }
  t.ok(await client.healthy())
  t.same(other.seen, [], 'the other origin got no request')
  t.same(
    gateway.seen,
    [`//${elsewhere}/steal${PAYLOAD_SUFFIX}?a=1&part=primary`, `//${elsewhere}/x${PAYLOAD_SUFFIX}?a=1&part=primary`, '/healthz'],
    'every request went to the gateway\'s origin, the path only set on it',
  )
})

t.test('render requests without the gateway\'s signature get 403 and nothing is fetched; health and metrics stay open', async (t) => {
  const system = await startSystem({ PAGE_CACHE: 'false', LOG_LEVEL: 'debug' })
  t.teardown(() => system.close())
  const signer = new RenderSigner(system.renderSecret ?? '')
  const stranger = new RenderSigner('another secret, not the gateway\'s')
  const port = rendererPort(system)
  const body = await renderBodyOf(system, '/over-ons')
  const post = POST
  const refused: [name: string, method: string, headers: Record<string, string>, body?: string][] = [
    ['POST signed for another path', 'POST', signedHeaders(signer, 'POST', '/contact', post, body), body],
    ['POST signed with another secret', 'POST', signedHeaders(stranger, 'POST', '/over-ons', post, body), body],
    ['POST with a signature of the wrong length', 'POST', { ...signedHeaders(signer, 'POST', '/over-ons', post, body), [RENDER_SIGNATURE_HEADER]: 'x' }, body],
    ['POST unsigned', 'POST', post, body],
    ['POST signed as a GET', 'POST', signedHeaders(signer, 'GET', '/over-ons', post), body],
    ['POST with another body', 'POST', signedHeaders(signer, 'POST', '/over-ons', post, '{}'), body],
  ]
  for (const [index, [name, method, headers, sent]] of refused.entries()) {
    const requestId = `unsigned-${index}`
    const answer = await rawRequest(port, method, '/over-ons', { ...headers, [REQUEST_ID_HEADER]: requestId }, sent)
    t.equal(answer.status, 403, name)
    t.match(JSON.parse(answer.text), { errors: [{ extensions: { code: 'FORBIDDEN' } }] })
    t.notOk(gatewaySaw(system, requestId), 'nothing fetched')
  }

  for (const path of ['/healthz', '/readyz', '/metrics']) {
    t.equal((await rawRequest(port, 'GET', path, {})).status, 200, `${path} needs no signature`)
  }

  const signedPost = await rawRequest(port, 'POST', '/over-ons', signedHeaders(signer, 'POST', '/over-ons', post, body), body)
  t.equal(signedPost.status, 200, 'a signed POST renders')
})

t.test('a signed render request renders once, while fresh, with the headers it was signed with: a replay, one signed too long ago or too far ahead, or a changed token or user agent gets 403, logged, and nothing is fetched', async (t) => {
  const system = await startSystem({ PAGE_CACHE: 'false', LOG_LEVEL: 'debug' })
  t.teardown(() => system.close())
  const secret = system.renderSecret ?? ''
  const signer = new RenderSigner(secret)
  const maxAgeMs = loadRendererConfig({}).renderSignatureMaxAgeMs
  const port = rendererPort(system)
  const visitor = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' }
  // x-request-id is not signed: a replay under a new one shows whether the renderer fetched anything for it.
  const body = await renderBodyOf(system, '/over-ons')
  const send = (requestId: string, headers: Record<string, string>) => rawRequest(port, 'POST', '/over-ons', { ...headers, [REQUEST_ID_HEADER]: requestId }, body)
  const refusalOf = (requestId: string) => system.rendererLogs.lines.find((line) => line.requestId === requestId && line.msg === 'render request without a valid signature refused')?.refusal

  const post = { ...visitor, 'content-type': RENDER_REQUEST_CONTENT_TYPE }
  const sign = (by: RenderSigner, headers: Record<string, string>) => signedHeaders(by, 'POST', '/over-ons', headers, body)
  const captured = sign(signer, post)
  const fresh = await send('fresh', captured)
  t.equal(fresh.status, 200, 'a fresh request, signed as the gateway signs it, renders')
  t.ok(h1Of(fresh.text))

  const tooOld = new RenderSigner(secret, () => Date.now() - maxAgeMs - 1000)
  const ahead = new RenderSigner(secret, () => Date.now() + 60_000)
  const refused: [name: string, headers: Record<string, string>, refusal: string][] = [
    ['the same request again', captured, 'replayed'],
    [`one signed ${maxAgeMs + 1000} ms ago`, sign(tooOld, post), 'expired'],
    ['one signed a minute ahead', sign(ahead, post), 'signed ahead'],
    ["a crawler's user agent on a visitor's signature", { ...sign(signer, post), 'user-agent': 'Googlebot/2.1' }, 'bad signature'],
    ['a user agent added to a request signed without one', { ...sign(signer, { 'content-type': RENDER_REQUEST_CONTENT_TYPE }), 'user-agent': 'Googlebot/2.1' }, 'bad signature'],
    ['a preview token added to a request signed without one', { ...sign(signer, post), [CRAFT_TOKEN_HEADER]: 'stolen-token' }, 'bad signature'],
    ['another preview token', { ...sign(signer, { ...post, [CRAFT_TOKEN_HEADER]: 'editors-token' }), [CRAFT_TOKEN_HEADER]: 'stolen-token' }, 'bad signature'],
    ['another signing time', { ...sign(signer, post), 'x-render-signed-at': String(Date.now() + 1) }, 'bad signature'],
    ['no signing time', (({ 'x-render-signed-at': _, ...rest }) => rest)(sign(signer, post)), 'unsigned'],
  ]
  for (const [index, [name, headers, refusal]] of refused.entries()) {
    const requestId = `refused-${index}`
    const answer = await send(requestId, headers)
    t.equal(answer.status, 403, name)
    t.match(answer.text, '"code":"FORBIDDEN"', `${name}: FORBIDDEN`)
    t.equal(refusalOf(requestId), refusal, `${name}: logged as ${refusal}`)
    t.notOk(gatewaySaw(system, requestId), `${name}: nothing fetched`)
  }
})

t.test('a render request captured between the gateway and its renderer renders once: sent again it gets 403, with a crawler\'s user agent too', async (t) => {
  // A recording hop in front of the renderer, as someone on the internal network would sit.
  const captured: { method: string; url: string; headers: Record<string, string>; body: Buffer }[] = []
  const target = { origin: '' }
  const hop = await listenOnLoopback(t, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
      const body = Buffer.concat(chunks)
      captured.push({ method: req.method ?? '', url: req.url ?? '', headers, body })
      request(`${target.origin}${req.url ?? ''}`, { method: req.method as 'GET' | 'POST', headers, body: body.length > 0 ? body : null }).then(
        // The renderer's headers passed on (its mark and the page's nonce among them), but those of the hop's own framing.
        async (answer) => {
          const body = Buffer.from(await answer.body.arrayBuffer())
          const passed = Object.entries(answer.headers).filter(([name]) => !['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'trailer'].includes(name))
          res.writeHead(answer.statusCode, Object.fromEntries(passed) as Record<string, string>).end(body)
        },
        () => res.writeHead(502).end(),
      )
    })
  })
  const system = await startSystem({ PAGE_CACHE: 'false' }, (config) => {
    target.origin = config.rendererUrls[0]?.origin ?? ''
    config.rendererUrls = [new URL(`http://127.0.0.1:${hop}`)]
  })
  t.teardown(() => system.close())
  const page = await request(`${system.url}/over-ons`, { headers: { 'user-agent': 'Mozilla/5.0' } })
  t.equal(page.statusCode, 200, 'the page renders through the hop')
  await page.body.dump()
  const render = captured.find((sent) => sent.method === 'POST' && sent.url === '/over-ons')
  t.ok(render, 'the render request was captured')
  if (!render) return
  const replay = (headers: Record<string, string>) => rawRequest(rendererPort(system), render.method, render.url, headers, render.body)
  const statuses = new Map<number, number>()
  for (let i = 0; i < 20; i++) {
    const { status } = await replay(render.headers)
    statuses.set(status, (statuses.get(status) ?? 0) + 1)
  }
  t.same([...statuses], [[403, 20]], 'each of 20 replays refused')
  t.equal((await replay({ ...render.headers, 'user-agent': 'Googlebot/2.1' })).status, 403, "a crawler's user agent on it: 403")
})

t.test("every refusal of the renderer is a coded JSON error in the gateway's shape, kept by nobody", async (t) => {
  const system = await startSystem({ PAGE_CACHE: 'false', LOG_LEVEL: 'debug' })
  t.teardown(() => system.close())
  const signer = new RenderSigner(system.renderSecret ?? '')
  const post = { 'content-type': RENDER_REQUEST_CONTENT_TYPE }
  const signed = (method: string, path: string, body?: string) => signedHeaders(signer, method, path, body === undefined ? {} : post, body)
  const body = await renderBodyOf(system, '/over-ons')
  const refusals: [name: string, method: string, path: string, headers: Record<string, string>, body: string | undefined, status: number, code: string, message: string | RegExp][] = [
    ['unsigned', 'POST', '/over-ons', POST, body, 403, 'FORBIDDEN', 'The render request is not signed by the gateway'],
    ['a path the router cannot read', 'POST', '/%ff', signed('POST', '/%ff', body), body, 400, 'BAD_REQUEST', 'Invalid path'],
    ['not a plain site path', 'POST', '/over\\ons', signed('POST', '/over\\ons', body), body, 400, 'BAD_REQUEST', 'Invalid path'],
    ['another render protocol', 'POST', '/over-ons', signedHeaders(signer, 'POST', '/over-ons', { ...post, [RENDER_PROTOCOL_HEADER]: '1' }, body), body, 503, 'RENDER_PROTOCOL_MISMATCH', 'The render request speaks render protocol 1; this renderer speaks 2'],
    ['a GET of a page, the render of releases before the protocol', 'GET', '/over-ons', {}, undefined, 503, 'RENDER_PROTOCOL_MISMATCH', /speaks render protocol \(none\)/],
    ['a body that is not a render request', 'POST', '/over-ons', signed('POST', '/over-ons', 'not json'), 'not json', 400, 'BAD_REQUEST', 'The body is not a render request'],
    ['a body of another type (Fastify\'s own error)', 'POST', '/over-ons', { 'content-type': 'application/xml' }, '<x/>', 415, 'FST_ERR_CTP_INVALID_MEDIA_TYPE', /media type/i],
    ['a method it has no route for', 'DELETE', '/over-ons', {}, undefined, 404, 'NOT_FOUND', 'Not found'],
  ]
  for (const [name, method, path, headers, body, status, code, message] of refusals) {
    const answer = await rawRequest(rendererPort(system), method, path, headers, body)
    t.equal(answer.status, status, name)
    t.match(answer.headers['content-type'], /^application\/json/, `${name}: JSON`)
    t.equal(answer.headers['cache-control'], 'private, no-store', `${name}: kept by nobody`)
    const json = JSON.parse(answer.text) as { errors: { message: string; extensions: { code: string } }[] }
    t.same(Object.keys(json), ['errors'], `${name}: nothing beside the errors`)
    t.equal(json.errors.length, 1)
    t.same(json.errors[0]?.extensions, { code }, `${name}: ${code}`)
    t.match(json.errors[0]?.message, message)
  }
})

t.test('the gateway signs its render requests as they are sent, so the real system renders pages', async (t) => {
  const system = await startSystem({ PAGE_CACHE: 'false', LOG_LEVEL: 'debug' })
  t.teardown(() => system.close())
  // The URL parser encodes `"` and `{` in a query and drops `/./`: the signature covers the target as sent.
  const pages: [path: string, status: number][] = [['/over-ons', 200], ['/', 200], ['/over-ons?x="{a}"', 200], ['/./contact', 404]]
  for (const [path, status] of pages) {
    const response = await rawRequest(Number(new URL(system.url).port), 'GET', path, {})
    t.equal(response.status, status, path)
    t.ok(h1Of(response.text), `${path} has its page`)
  }
  // The user agent is signed as the gateway holds it and checked as the renderer reads it: bytes beyond ASCII, blanks inside.
  for (const userAgent of ['Mozilla/5.0 (caf\u00e9)', Buffer.from('Mozilla/5.0 café €', 'utf8').toString('latin1'), 'Googlebot/2.1  (+http://www.google.com/bot.html)']) {
    const response = await rawRequest(Number(new URL(system.url).port), 'GET', '/over-ons', { 'user-agent': userAgent })
    t.equal(response.status, 200, `user agent ${JSON.stringify(userAgent)}`)
  }
  t.notOk(system.rendererLogs.lines.some((line) => line.msg === 'render request without a valid signature refused'), 'the renderer refused none')
})

t.test('RENDER_SECRET is read by both services; one too short to resist guessing stops them', async (t) => {
  t.equal(loadRendererConfig({}).renderSecret, undefined)
  t.equal(loadGatewayConfig({}).renderSecret, undefined)
  t.equal(loadRendererConfig({ RENDER_SECRET: 'a'.repeat(16) }).renderSecret, 'a'.repeat(16))
  t.equal(loadGatewayConfig({ RENDER_SECRET: 'a'.repeat(16) }).renderSecret, 'a'.repeat(16))
  t.throws(() => loadRendererConfig({ RENDER_SECRET: 'geheim' }), /RENDER_SECRET/)
  t.throws(() => loadGatewayConfig({ RENDER_SECRET: 'geheim' }), /RENDER_SECRET/)
})
