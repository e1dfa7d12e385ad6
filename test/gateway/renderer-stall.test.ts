import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http'
import { type Socket, connect, createServer as createTcpServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { RenderBody } from '../../gateway/pages/render-body.ts'
import { type ProbeTimers, RendererPool } from '../../gateway/renderers/renderer-pool.ts'
import { CACHE_STATUS_HEADER, CSP_NONCE_HEADER, RENDERER_BUILD_HEADER } from '../../shared/constants.ts'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION } from '../../shared/render-protocol/index.ts'
import { startSystem } from '../helpers/system.ts'
import { until } from '../helpers/until.ts'

/**
 * RENDER_STALL_MS: a render with no answer within the bound goes once to another renderer, or the stored page
 * answers; the stalled renderer is avoided until its health check passes. The bound is small here (50 ms) and
 * nothing below depends on how fast anything is: each test waits on what answered, and a renderer that stalls
 * never answers at all.
 */

/** What a renderer puts on every answer, and its health check's answer. */
const MARK = { [RENDERER_BUILD_HEADER]: 'stand-in', [RENDER_PROTOCOL_HEADER]: RENDER_PROTOCOL_VERSION }
const HEALTHY = `{"status":"ok","build":"stand-in","protocol":"${RENDER_PROTOCOL_VERSION}"}`
const BODY = RenderBody.of('{}\n[]')

interface SeenRender {
  path: string
  res: ServerResponse
  /** Resolves when the gateway's request closed before any answer: the render was aborted. */
  aborted: Promise<void>
}

/**
 * A renderer's stand-in. `page` answers a render (by default: a page naming the stand-in); `stall` takes renders and
 * never answers them, as a paused process does; `healthy` whether its /healthz answers (a paused one's does not).
 */
async function standIn(t: Test, name: string) {
  const state = { stall: false, healthy: true, page: undefined as ((req: IncomingMessage, res: ServerResponse) => void) | undefined }
  const renders: SeenRender[] = []
  const server: Server = createServer((req, res) => {
    if (req.url === '/healthz') {
      if (state.healthy) res.writeHead(200, { 'content-type': 'application/json', ...MARK }).end(HEALTHY)
      return
    }
    const aborted = new Promise<void>((resolve) => res.once('close', () => res.writableEnded || resolve()))
    renders.push({ path: String(req.url), res, aborted })
    req.resume()
    if (state.stall) return
    if (state.page) return state.page(req, res)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', [CSP_NONCE_HEADER]: 'n0nce', ...MARK }).end(`<p>${name}</p>`)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { state, renders, url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`) }
}

/**
 * A TCP proxy in front of the real renderer that can freeze, as `docker pause` does: from then on nothing more is
 * forwarded on any connection, new or open, and nothing is cut. It keeps the request lines that reached it frozen,
 * and the sockets they came on.
 */
async function freezingProxy(t: Test) {
  const state = { frozen: false, target: undefined as URL | undefined }
  const frozenRequests: { line: string; socket: Socket }[] = []
  const open = new Set<Socket>()
  const server = createTcpServer((socket) => {
    open.add(socket)
    socket.once('close', () => open.delete(socket))
    socket.on('error', () => undefined)
    const upstream = connect(Number(state.target?.port), state.target?.hostname)
    open.add(upstream)
    upstream.once('close', () => open.delete(upstream))
    upstream.on('error', () => socket.destroy())
    socket.once('close', () => upstream.destroy())
    upstream.on('data', (chunk: Buffer) => state.frozen || socket.write(chunk))
    socket.on('data', (chunk: Buffer) => {
      if (!state.frozen) return void upstream.write(chunk)
      for (const match of chunk.toString('latin1').matchAll(/^(GET|POST) (\S+) HTTP\/1\.1\r\n/gm)) frozenRequests.push({ line: `${match[1]} ${match[2]}`, socket })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of open) socket.destroy()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { state, frozenRequests, url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`) }
}

const CLIENT_BOUND = { headersTimeout: 30_000, bodyTimeout: 30_000 }

/**
 * RENDER_TIMEOUT_MS is 10 s and the probes every minute: without the stall bound a stalled render would wait out
 * the timeout (and be logged `renderer skipped` for it), which the tests below tell apart from the bound's answer.
 */
const SLOW_OTHERWISE = { RENDER_STALL_MS: '50', RENDER_TIMEOUT_MS: '10000', RENDERER_PROBE_INTERVAL_MS: '60000' }

t.test('a render that stalls goes to the other renderer, the first aborted; the next misses avoid the stalled one', async (t) => {
  const paused = await standIn(t, 'paused')
  paused.state.stall = true
  paused.state.healthy = false
  const system = await startSystem(SLOW_OTHERWISE, (config) => {
    // The paused renderer first: the pool's first render goes to it (round robin from the first member).
    config.rendererUrls = [paused.url, ...config.rendererUrls]
  })
  t.teardown(() => system.close())
  const logs = (msg: string) => system.gatewayLogs.lines.filter((line) => line.msg === msg)

  const response = await request(`${system.url}/kantoren`, CLIENT_BOUND)
  const text = await response.body.text()
  t.equal(response.statusCode, 200, 'the page')
  t.equal(response.headers[CACHE_STATUS_HEADER], 'MISS', 'rendered for this request')
  t.match(text, /Kantoren/, 'by the real renderer (the paused one never answers)')
  t.same(
    paused.renders.map((render) => render.path),
    ['/kantoren'],
    'the render had reached the paused renderer first',
  )
  await paused.renders[0]?.aborted
  t.pass("the paused renderer's request was aborted, not left open")
  t.match(logs('render stalled; renderer avoided until its health check passes'), [{ then: 'another renderer' }], 'the stall sent it on, once')
  t.same(logs('renderer skipped').filter((line) => line.reason === 'UND_ERR_HEADERS_TIMEOUT'), [], 'no render waited out RENDER_TIMEOUT_MS')

  for (const path of ['/disclaimer', '/privacy', '/contact']) {
    const next = await request(`${system.url}${path}`, CLIENT_BOUND)
    await next.body.dump()
    t.equal(next.statusCode, 200, `${path} rendered`)
  }
  t.equal(paused.renders.length, 1, 'the next misses were not sent to the stalled renderer')
})

t.test('the only renderer stalls: the stored page answers, and the stalled render is aborted', async (t) => {
  const proxy = await freezingProxy(t)
  // A page TTL of 0: the second request asks for a render rather than taking the stored page at once.
  const system = await startSystem({ ...SLOW_OTHERWISE, PAGE_CACHE_TTL_MS: '0' }, (config) => {
    proxy.state.target = config.rendererUrls[0]
    config.rendererUrls = [proxy.url]
  })
  t.teardown(() => system.close())
  const logs = (msg: string) => system.gatewayLogs.lines.filter((line) => line.msg === msg)
  const get = async (path: string) => {
    const response = await request(`${system.url}${path}`, CLIENT_BOUND)
    return { status: response.statusCode, xCache: response.headers[CACHE_STATUS_HEADER], text: await response.body.text() }
  }
  t.match(await get('/kantoren'), { status: 200, xCache: 'MISS' }, 'rendered and stored')

  proxy.state.frozen = true
  t.match(await get('/kantoren'), { status: 200, xCache: 'STALE', text: /Kantoren/ }, 'the stored page')
  const render = proxy.frozenRequests.find((seen) => seen.line === 'POST /kantoren')
  t.ok(render, 'the render had reached the paused renderer')
  if (render && !render.socket.destroyed) await new Promise((resolve) => render.socket.once('close', resolve))
  t.pass("the render's connection was closed by the gateway: aborted")
  t.match(logs('render stalled; renderer avoided until its health check passes'), [{ then: 'the stored page' }], 'given up for the stored page')
  t.same(logs('renderer skipped').filter((line) => line.reason === 'UND_ERR_HEADERS_TIMEOUT'), [], 'not after RENDER_TIMEOUT_MS')
})

t.test('a streamed page whose head came is not sent to another renderer, however long its body takes', async (t) => {
  const streaming = await standIn(t, 'streaming')
  const other = await standIn(t, 'other')
  let finish: (() => void) | undefined
  streaming.state.page = (_req, res) => {
    // No length: a page that streams. Its head and first part now, the rest when the test says.
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', [CSP_NONCE_HEADER]: 'n0nce', ...MARK })
    res.write('<p>streaming: first part</p>')
    finish = () => res.end('<p>streaming: the rest</p>')
  }
  const system = await startSystem(SLOW_OTHERWISE, (config) => {
    config.rendererUrls = [streaming.url, other.url]
  })
  t.teardown(() => system.close())

  const response = await request(`${system.url}/kantoren`, CLIENT_BOUND)
  t.equal(response.statusCode, 200, 'the streamed page')
  // The visitor's first bytes come after the commit window (150 ms), which starts once the head came: the stall
  // bound (50 ms from the render's start) had passed by then, and a render it gave up would have gone to the other.
  const chunks: string[] = []
  const ended = new Promise<void>((resolve, reject) => {
    response.body.on('data', (chunk: Buffer) => chunks.push(String(chunk)))
    response.body.once('end', resolve).once('error', reject)
  })
  await until(() => chunks.join('').includes('first part') || other.renders.length > 0, 'the first part reached the visitor')
  t.ok(finish, 'the streaming renderer has the render')
  t.equal(other.renders.length, 0, 'the other renderer was sent nothing')
  t.same(
    system.gatewayLogs.lines.filter((line) => line.msg === 'render stalled; renderer avoided until its health check passes'),
    [],
    'no stall',
  )
  finish?.()
  await ended
  t.match(chunks.join(''), /first part.*the rest/s, 'the whole streamed page, from the streaming renderer')
  t.equal(other.renders.length, 0, 'nor once the page ended')
})

/** Probe timers the test fires by hand: the pool's health checks run only when it says. */
function manualTimers(): ProbeTimers & { fireAll(): void; delays(): number[] } {
  const pending = new Map<number, { callback: () => void; ms: number }>()
  let id = 0
  return {
    setTimeout: (callback, ms) => {
      pending.set(++id, { callback, ms })
      return id
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
    fireAll() {
      const entries = [...pending.values()]
      pending.clear()
      for (const entry of entries) entry.callback()
    },
    delays: () => [...pending.values()].map((entry) => entry.ms),
  }
}

async function renderText(pool: RendererPool, standInPage?: () => boolean): Promise<string> {
  const response = await pool.render('/', { accept: 'text/html' }, BODY, { standIn: standInPage })
  if (Buffer.isBuffer(response.body)) return response.body.toString('utf8')
  const chunks: Buffer[] = []
  for await (const chunk of response.body) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

t.test('a stalled renderer is last in turn until its health check passes, which is asked at once', async (t) => {
  const slow = await standIn(t, 'slow')
  slow.state.stall = true
  const good = await standIn(t, 'good')
  const probes = manualTimers()
  const suspects: string[] = []
  const pool = new RendererPool([slow.url, good.url], 10_000, {
    probeIntervalMs: 60_000,
    dnsRefreshMs: 60_000,
    timers: probes,
    stallMs: 50,
    onSuspect: (origin, suspect) => suspects.push(`${origin === slow.url.origin ? 'slow' : 'good'} ${suspect}`),
  })
  t.teardown(() => pool.close())
  t.equal(await renderText(pool), '<p>good</p>', 'the stalled render went to the other')
  t.same(suspects, ['slow true'], 'the stalled renderer is suspect')
  t.same(pool.list().map((member) => [member.up, member.suspect]), [[true, true], [true, false]], 'still up, but suspect')
  t.ok(probes.delays().includes(0), 'its health check asked at once')
  for (let i = 0; i < 4; i++) t.equal(await renderText(pool), '<p>good</p>')
  t.equal(slow.renders.length, 1, 'no render went to the suspect one while the other was up')

  slow.state.stall = false
  probes.fireAll()
  await until(() => suspects.length === 2, 'the health check cleared it')
  t.same(suspects, ['slow true', 'slow false'], 'cleared by its health check')
  const texts = [await renderText(pool), await renderText(pool)]
  t.same(texts.sort(), ['<p>good</p>', '<p>slow</p>'], 'in turn again')
})

t.test('one retry per render: when the retry stalls too, the stored page answers; without one, the render is waited on', async (t) => {
  const first = await standIn(t, 'first')
  const second = await standIn(t, 'second')
  const third = await standIn(t, 'third')
  first.state.stall = true
  second.state.stall = true
  const probes = manualTimers()
  const pool = new RendererPool([first.url, second.url, third.url], 10_000, { probeIntervalMs: 60_000, dnsRefreshMs: 60_000, timers: probes, stallMs: 50 })
  t.teardown(() => pool.close())
  await t.rejects(renderText(pool, () => true), { code: 'RENDER_STALLED' }, 'both stalled: the render fails, for the stored page to answer')
  t.same([first.renders.length, second.renders.length, third.renders.length], [1, 1, 0], 'two render requests, not three')
  await Promise.all([first.renders[0]?.aborted, second.renders[0]?.aborted])
  t.pass('both aborted')

  // A new pool: none suspect. Nothing to stand in: the retry that stalls is waited on, and its page taken when it comes.
  const stalls: string[] = []
  const again = new RendererPool([first.url, second.url, third.url], 10_000, {
    probeIntervalMs: 60_000,
    dnsRefreshMs: 60_000,
    timers: manualTimers(),
    stallMs: 50,
    onStall: (origin, then) => stalls.push(`${origin === first.url.origin ? 'first' : 'second'}: ${then}`),
  })
  t.teardown(() => again.close())
  const rendering = renderText(again, () => false)
  await until(() => stalls.length === 2, 'both stalled')
  t.same(stalls, ['first: another renderer', 'second: waited on'], 'the retry stalled too, and is waited on')
  const waited = second.renders[1] as SeenRender
  waited.res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', [CSP_NONCE_HEADER]: 'n0nce', ...MARK }).end('<p>second, late</p>')
  t.equal(await rendering, '<p>second, late</p>', 'the late page')
  t.equal(third.renders.length, 0, 'no third request')
})
