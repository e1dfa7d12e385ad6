import { type IncomingMessage, type Server, createServer } from 'node:http'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION } from '../../shared/render-protocol/index.ts'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { RenderBody, RenderBodyMemo } from '../../gateway/pages/render-body.ts'
import { RendererPool } from '../../gateway/renderers/renderer-pool.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { RENDERER_BUILD_HEADER } from '../../shared/constants.ts'
import { RENDER_DATA_KEPT_HEADER, RENDER_DATA_UNKNOWN, RENDER_DATA_UNKNOWN_STATUS, RENDER_REFERENCE_CONTENT_TYPE, RENDER_REQUEST_CONTENT_TYPE } from '../../shared/render-protocol/index.ts'
import { SignatureCheck } from '../../renderer/server/render-signatures.ts'
import { RenderSigner, contentDigest } from '../../shared/render-protocol/index.ts'

const SECRET = 'a-render-secret-for-tests'
const signer = new RenderSigner(SECRET)

interface Seen {
  type: string
  body: string
}

/**
 * A stand-in renderer that speaks the reference protocol as the real one
 * does: it checks every signature with the real renderer's check (fresh,
 * used once), keeps the data of full bodies by their digest when `keeps` is
 * on (and says so), renders a reference from what it kept, and answers 409
 * for one it does not have.
 */
async function referenceRenderer(t: Test, options: { keeps: boolean; signed?: boolean }): Promise<{ url: URL; seen: Seen[]; kept: Map<string, string> }> {
  const seen: Seen[] = []
  const kept = new Map<string, string>()
  const settings = { signed: true, ...options }
  const signatures = new SignatureCheck(signer, { maxAgeMs: 10_000, replayCheck: true })
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    // As a renderer answers: its build on every answer (the gateway takes nothing without it).
    res.setHeader(RENDERER_BUILD_HEADER, 'test-build')
    res.setHeader(RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION)
    if (req.url === '/healthz') return void res.writeHead(200).end(`{"status":"ok","protocol":"${RENDER_PROTOCOL_VERSION}"}`)
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    const type = String(req.headers['content-type'])
    seen.push({ type, body: body.toString('utf8') })
    const path = String(req.url)
    if (settings.signed && signatures.refusal(req, contentDigest(body)) !== undefined) return void res.writeHead(403).end('unsigned')
    let data: string | undefined
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' }
    if (type === RENDER_REFERENCE_CONTENT_TYPE) data = kept.get(body.toString('utf8'))
    else {
      data = body.toString('utf8')
      if (settings.keeps) {
        kept.set(contentDigest(body), data)
        headers[RENDER_DATA_KEPT_HEADER] = '1'
      }
    }
    if (data === undefined) {
      res.writeHead(RENDER_DATA_UNKNOWN_STATUS, { 'content-type': 'application/json' })
      return void res.end(JSON.stringify({ errors: [{ message: 'unknown', extensions: { code: RENDER_DATA_UNKNOWN } }] }))
    }
    res.writeHead(200, headers).end(`<p>${data}</p>`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  return { url: new URL(`http://127.0.0.1:${port}`), seen, kept }
}

function poolFor(t: Test, urls: URL[], secret: string | undefined): RendererPool {
  const pool = new RendererPool(urls, 2000, { probeIntervalMs: 60_000, dnsRefreshMs: 60_000, renderSecret: secret })
  t.teardown(() => pool.close())
  return pool
}

async function pageOf(pool: RendererPool, path: string, body: RenderBody): Promise<{ status: number; text: string }> {
  const response = await pool.render(path, { accept: 'text/html' }, body)
  if (Buffer.isBuffer(response.body)) return { status: response.statusCode, text: response.body.toString('utf8') }
  const chunks: Buffer[] = []
  for await (const chunk of response.body) chunks.push(chunk as Buffer)
  return { status: response.statusCode, text: Buffer.concat(chunks).toString('utf8') }
}

const DATA = '{"path":"/","data":{"home":{"title":"Welkom"}}}'

t.test('a body the renderer kept is sent as a reference: its digest, signed like any render request', async (t) => {
  const renderer = await referenceRenderer(t, { keeps: true })
  const pool = poolFor(t, [renderer.url], SECRET)
  const body = RenderBody.of(DATA)
  t.same(await pageOf(pool, '/', body), { status: 200, text: `<p>${DATA}</p>` })
  t.same(await pageOf(pool, '/', body), { status: 200, text: `<p>${DATA}</p>` }, 'rendered from the data the renderer kept')
  t.same(
    renderer.seen.map((s) => s.type),
    [RENDER_REQUEST_CONTENT_TYPE, RENDER_REFERENCE_CONTENT_TYPE],
    'the bytes once, then a reference',
  )
  t.equal(renderer.seen[1]?.body, contentDigest(DATA), "the reference is the full body's digest")
  t.ok((renderer.seen[1]?.body.length ?? 0) < 50, 'a few dozen bytes instead of the data')
})

t.test('a renderer that no longer has the data (409) is sent the body at once; the visitor never sees the 409', async (t) => {
  const renderer = await referenceRenderer(t, { keeps: true })
  const pool = poolFor(t, [renderer.url], SECRET)
  const body = RenderBody.of(DATA)
  await pageOf(pool, '/', body)
  renderer.kept.clear()
  t.same(await pageOf(pool, '/', body), { status: 200, text: `<p>${DATA}</p>` })
  t.same(
    renderer.seen.map((s) => s.type),
    [RENDER_REQUEST_CONTENT_TYPE, RENDER_REFERENCE_CONTENT_TYPE, RENDER_REQUEST_CONTENT_TYPE],
    'reference refused, then the body',
  )
  await pageOf(pool, '/', body)
  t.equal(renderer.seen.at(-1)?.type, RENDER_REFERENCE_CONTENT_TYPE, 'kept again, so referenced again')
})

t.test('a renderer that does not say it kept the data always gets the body', async (t) => {
  const renderer = await referenceRenderer(t, { keeps: false })
  const pool = poolFor(t, [renderer.url], SECRET)
  const body = RenderBody.of(DATA)
  for (let i = 0; i < 3; i++) t.same(await pageOf(pool, '/', body), { status: 200, text: `<p>${DATA}</p>` })
  t.same(
    renderer.seen.map((s) => s.type),
    [RENDER_REQUEST_CONTENT_TYPE, RENDER_REQUEST_CONTENT_TYPE, RENDER_REQUEST_CONTENT_TYPE],
  )
})

t.test('each renderer of the pool gets the body once before it is sent references', async (t) => {
  const a = await referenceRenderer(t, { keeps: true })
  const b = await referenceRenderer(t, { keeps: true })
  const pool = poolFor(t, [a.url, b.url], SECRET)
  const body = RenderBody.of(DATA)
  for (let i = 0; i < 4; i++) t.equal((await pageOf(pool, '/', body)).status, 200)
  for (const renderer of [a, b]) t.same(renderer.seen.map((s) => s.type), [RENDER_REQUEST_CONTENT_TYPE, RENDER_REFERENCE_CONTENT_TYPE])
})

t.test('without RENDER_SECRET nothing is referenced: a reference must be signed to be trusted', async (t) => {
  // A stand-in that takes unsigned requests and says it kept the data all the same.
  const renderer = await referenceRenderer(t, { keeps: true, signed: false })
  const pool = poolFor(t, [renderer.url], undefined)
  const body = RenderBody.of(DATA)
  t.same(await pageOf(pool, '/', body), { status: 200, text: `<p>${DATA}</p>` })
  t.same(await pageOf(pool, '/', body), { status: 200, text: `<p>${DATA}</p>` })
  t.same(renderer.seen.map((s) => s.type), [RENDER_REQUEST_CONTENT_TYPE, RENDER_REQUEST_CONTENT_TYPE], 'the body every time')
})

const payloadOf = (data: Record<string, unknown>, status = 200): PagePayload => ({
  path: '/',
  fullPath: '/',
  routeId: 'home',
  screen: 'home',
  status,
  data,
  pending: ['latestNews'],
  page: 1,
  preview: false,
  siteUrl: '',
  canonicalPath: '/',
})

const TAGS = ['home', 'entry:1']

t.test('the body memo: the same page with the same data objects is the same body; other data, another body', async (t) => {
  const memo = new RenderBodyMemo()
  const home = { title: 'Welkom' }
  const news = { entries: [] }
  const first = memo.bodyOf('/', payloadOf({ home }), TAGS, { news })
  t.equal(memo.bodyOf('/', payloadOf({ home }), TAGS, { news }), first, 'the same objects: the kept body')
  t.same(JSON.parse(first.bytes.toString('utf8').split('\n')[0] ?? '').data, { home }, 'its first line is the payload')
  t.same(JSON.parse(first.bytes.toString('utf8').split('\n')[1] ?? ''), TAGS, 'its second the tags of its data')
  t.same(JSON.parse(first.bytes.toString('utf8').split('\n')[2] ?? ''), { news }, 'its third the deferred data')
  t.not(memo.bodyOf('/', payloadOf({ home: { title: 'Welkom' } }), TAGS, { news }), first, 'equal but another object (a refetched answer): a new body')
  const again = memo.bodyOf('/', payloadOf({ home }), TAGS, { news })
  t.not(memo.bodyOf('/', payloadOf({ home }), TAGS), again, 'without the deferred data: another body')
  t.not(memo.bodyOf('/', payloadOf({ home }, 404), TAGS), memo.bodyOf('/', payloadOf({ home }), TAGS), 'another status: another body')
  t.not(memo.bodyOf('/a', payloadOf({ home }), TAGS), memo.bodyOf('/b', payloadOf({ home }), TAGS), 'another page: another body')
})

t.test('the body memo is bounded by bytes', async (t) => {
  const bound = 64 * 1024
  const memo = new RenderBodyMemo(bound)
  const text = 'x'.repeat(4000)
  for (let i = 0; i < 100; i++) {
    memo.bodyOf(`/page-${i}`, payloadOf({ block: { text } }), TAGS)
    t.ok(memo.bytes <= bound, `within its bound after ${i + 1} pages`)
  }
  t.ok(memo.bytes > bound / 2, 'and it does keep pages')
})
