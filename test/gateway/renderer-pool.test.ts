import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { type PoolMember, type ProbeTimers, RendererPool } from '../../gateway/renderers/renderer-pool.ts'
import { RenderBody } from '../../gateway/pages/render-body.ts'
import { RENDERER_BUILD_HEADER } from '../../shared/constants.ts'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION } from '../../shared/render-protocol/index.ts'
import { freePort, retryOnAddressInUse } from '../helpers/ports.ts'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/** What a renderer puts on every answer, and its health check's answer: the gateway takes nothing without them. */
const MARK = { [RENDERER_BUILD_HEADER]: 'test-build', [RENDER_PROTOCOL_HEADER]: RENDER_PROTOCOL_VERSION }
const HEALTHY = `{"status":"ok","build":"test-build","protocol":"${RENDER_PROTOCOL_VERSION}"}`

/** A render request's body: the stand-ins do not read it. */
const BODY = RenderBody.of('{}\n[]')

/** A stand-in renderer: answers pages with its own name, and /healthz as told. */
/** A renderer's stand-in on `host`, on `port` or (0) one of the kernel's choosing: the port it got. */
async function fakeRenderer(t: Test, host: string, port: number, name: string, page?: Handler): Promise<{ seen: string[]; health: { ok: boolean }; port: number }> {
  const seen: string[] = []
  const health = { ok: true }
  const server: Server = createServer((req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(health.ok ? 200 : 503, { 'content-type': 'application/json', ...MARK }).end(HEALTHY)
      return
    }
    seen.push(String(req.headers.host))
    if (page) return page(req, res)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...MARK }).end(`<p>${name}</p>`)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, resolve)
  })
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  return { seen, health, port: (server.address() as AddressInfo).port }
}

/** Two stand-ins on one port of two loopback addresses: the second binds the port the kernel gave the first, again on another if it is taken there. */
const onOnePort = (t: Test) =>
  retryOnAddressInUse(async () => {
    const a = await fakeRenderer(t, '127.0.0.1', 0, 'a')
    const b = await fakeRenderer(t, '127.0.0.2', a.port, 'b')
    return { a, b, port: a.port }
  })

/** Fastify's exact answer while it closes (return503OnClosing). */
const closing: Handler = (_req, res) => {
  res.writeHead(503, { 'content-type': 'application/json', connection: 'close' })
  res.end('{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}')
}

async function renderText(pool: RendererPool, path = '/'): Promise<{ status: number; text: string }> {
  const response = await pool.render(path, { accept: 'text/html' }, BODY)
  if (Buffer.isBuffer(response.body)) return { status: response.statusCode, text: response.body.toString('utf8') }
  const chunks: Buffer[] = []
  for await (const chunk of response.body) chunks.push(chunk as Buffer)
  return { status: response.statusCode, text: Buffer.concat(chunks).toString('utf8') }
}

/** Renders `count` pages one after the other; what each said, sorted. */
async function rendersBy(pool: RendererPool, count: number): Promise<string[]> {
  const texts: string[] = []
  for (let i = 0; i < count; i++) texts.push((await renderText(pool)).text)
  return texts.sort()
}

const origins = (members: PoolMember[] | undefined): string[] => (members ?? []).map((member) => member.origin)

/** The calls of a callback as they come: `next(matches)` resolves with the first call from now on that matches. */
function callsOf<Args extends unknown[]>(): { record: (...args: Args) => void; next: (matches: (...args: Args) => boolean) => Promise<Args> } {
  const waiting = new Set<{ matches: (...args: Args) => boolean; resolve: (args: Args) => void }>()
  return {
    record: (...args) => {
      for (const waiter of waiting) {
        if (!waiter.matches(...args)) continue
        waiting.delete(waiter)
        waiter.resolve(args)
      }
    },
    next: (matches) => new Promise((resolve) => waiting.add({ matches, resolve })),
  }
}

const options = { probeIntervalMs: 50, dnsRefreshMs: 50 }

t.test('one name resolving to two addresses is two members, each sent the name as Host', async (t) => {
  const { a, b, port } = await onOnePort(t)
  const looked: string[] = []
  const pool = new RendererPool([new URL(`http://renderer.internal:${port}`)], 2000, {
    ...options,
    lookup: async (hostname) => {
      looked.push(hostname)
      return ['127.0.0.1', '127.0.0.2']
    },
  })
  t.teardown(() => pool.close())
  const pages = await Promise.all(Array.from({ length: 6 }, () => renderText(pool)))
  t.same(pages.map((p) => p.text).sort(), ['<p>a</p>', '<p>a</p>', '<p>a</p>', '<p>b</p>', '<p>b</p>', '<p>b</p>'], 'round robin over both addresses')
  t.same([...new Set([...a.seen, ...b.seen])], [`renderer.internal:${port}`])
  t.same(looked[0], 'renderer.internal')
  t.same(pool.list().map((m) => m.origin), [`http://127.0.0.1:${port}`, `http://127.0.0.2:${port}`])
})

t.test('the look-up is repeated: replicas come and go; a failed look-up keeps the last addresses', { timeout: 20_000 }, async (t) => {
  const { port } = await onOnePort(t)
  const [a, b] = [`http://127.0.0.1:${port}`, `http://127.0.0.2:${port}`]
  let answer: string[] | Error = ['127.0.0.1']
  const refreshes = callsOf<[members: PoolMember[], failures: { url: string; error: unknown }[]]>()
  const pool = new RendererPool([new URL(`http://renderer.internal:${port}`)], 2000, {
    ...options,
    onRefresh: refreshes.record,
    lookup: async () => {
      if (answer instanceof Error) throw answer
      return answer
    },
  })
  t.teardown(() => pool.close())
  t.same(await rendersBy(pool, 4), ['<p>a</p>', '<p>a</p>', '<p>a</p>', '<p>a</p>'])

  answer = ['127.0.0.1', '127.0.0.2']
  const [joined] = await refreshes.next((members) => members.length === 2)
  t.same(origins(joined), [a, b], 'a new replica joins')
  t.same(await rendersBy(pool, 4), ['<p>a</p>', '<p>a</p>', '<p>b</p>', '<p>b</p>'], 'and takes its turn')

  answer = Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' })
  const [kept, failures] = await refreshes.next((_members, failures) => failures.length > 0)
  t.match(failures, [{ url: `http://renderer.internal:${port}/`, error: { code: 'EAI_AGAIN' } }], 'the look-up failed')
  t.same(origins(kept), [a, b], 'a DNS hiccup keeps the members')
  t.same(await rendersBy(pool, 4), ['<p>a</p>', '<p>a</p>', '<p>b</p>', '<p>b</p>'], 'and both still render')

  answer = ['127.0.0.2']
  const [left] = await refreshes.next((members, failures) => members.length === 1 && failures.length === 0)
  t.same(origins(left), [b], 'a replica that is gone leaves')
  t.same(await rendersBy(pool, 4), ['<p>b</p>', '<p>b</p>', '<p>b</p>', '<p>b</p>'], 'and is sent nothing')
})

t.test('IP literals are not looked up', async (t) => {
  const { port } = await fakeRenderer(t, '127.0.0.1', 0, 'a')
  const pool = new RendererPool([new URL(`http://127.0.0.1:${port}`)], 2000, {
    ...options,
    lookup: async () => t.fail('no look-up') as never,
  })
  t.teardown(() => pool.close())
  t.equal((await renderText(pool)).text, '<p>a</p>')
})

t.test('a closing renderer (JSON 503) is skipped and marked down; a rendered 503 page goes through', async (t) => {
  const closingOne = await fakeRenderer(t, '127.0.0.1', 0, 'closing', closing)
  const p1 = closingOne.port
  closingOne.health.ok = false
  const { port: p2 } = await fakeRenderer(t, '127.0.0.1', 0, 'b')
  const changes: string[] = []
  const pool = new RendererPool([new URL(`http://127.0.0.1:${p1}`), new URL(`http://127.0.0.1:${p2}`)], 2000, {
    probeIntervalMs: 60_000,
    dnsRefreshMs: 60_000,
    onMemberChange: (origin, up, reason) => changes.push(`${origin} ${up ? 'up' : 'down'} ${reason}`),
  })
  t.teardown(() => pool.close())
  for (let i = 0; i < 4; i++) t.same(await renderText(pool), { status: 200, text: '<p>b</p>' })
  t.same(changes, [`http://127.0.0.1:${p1} down closing (503)`])
  t.equal(closingOne.seen.length, 1, 'tried once, then skipped')

  const { port: p3 } = await fakeRenderer(t, '127.0.0.1', 0, 'error page', (_req, res) => {
    res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', ...MARK }).end('<h1>Er is iets misgegaan.</h1>')
  })
  const single = new RendererPool([new URL(`http://127.0.0.1:${p3}`)], 2000, { probeIntervalMs: 60_000, dnsRefreshMs: 60_000 })
  t.teardown(() => single.close())
  t.same(await renderText(single), { status: 503, text: '<h1>Er is iets misgegaan.</h1>' }, 'the CMS being down is not the renderer being down')
})

/**
 * Not a renderer, at a renderer's address: it answers every path, /healthz too, with `status` and no renderer's
 * mark. The sandbox's egress proxy answered a gateway cut from the renderers' network so: 404, empty (issue 38's
 * Swarm run). How many requests it had.
 */
async function stranger(t: Test, status: number): Promise<{ port: number; seen: string[] }> {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(String(req.url))
    res.writeHead(status, { server: 'keryx', 'content-type': 'text/html', 'content-length': status === 200 ? 12 : 0 }).end(status === 200 ? '<p>hallo</p>' : undefined)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  return { port: (server.address() as AddressInfo).port, seen }
}

t.test("whatever answers at a renderer's address without a renderer's mark is not a render: the next member renders", async (t) => {
  const impostor = await stranger(t, 404)
  const { port: p2 } = await fakeRenderer(t, '127.0.0.1', 0, 'b')
  const changes: string[] = []
  const pool = new RendererPool([new URL(`http://127.0.0.1:${impostor.port}`), new URL(`http://127.0.0.1:${p2}`)], 2000, {
    probeIntervalMs: 60_000,
    dnsRefreshMs: 60_000,
    onMemberChange: (origin, up, reason) => changes.push(`${origin} ${up ? 'up' : 'down'} ${reason}`),
  })
  t.teardown(() => pool.close())
  for (let i = 0; i < 4; i++) t.same(await renderText(pool), { status: 200, text: '<p>b</p>' }, 'every page from the renderer')
  t.same(changes, [`http://127.0.0.1:${impostor.port} down answered without a renderer's mark`])
  t.equal(impostor.seen.length, 1, 'asked once, then skipped')

  // Alone, it fails the render (a stored page or the 503 page stands in), never hands on its 404.
  const alone = await stranger(t, 404)
  const single = new RendererPool([new URL(`http://127.0.0.1:${alone.port}`)], 2000, { probeIntervalMs: 60_000, dnsRefreshMs: 60_000 })
  t.teardown(() => single.close())
  await t.rejects(single.render('/', { accept: 'text/html' }, BODY), { name: 'NotARendererError' })
  t.ok(single.noneUp(), 'and it is down')
})

t.test("a health check passes only on a renderer's answer: a 200 that is not one keeps the member down", async (t) => {
  // Any web server's page: 200 on every path, /healthz too.
  const impostor = await stranger(t, 200)
  const pool = new RendererPool([new URL(`http://127.0.0.1:${impostor.port}`)], 2000, { probeIntervalMs: 60_000, dnsRefreshMs: 60_000 })
  t.teardown(() => pool.close())
  await t.rejects(pool.render('/', { accept: 'text/html' }, BODY), { name: 'NotARendererError' }, 'its page is not a render')
  t.ok(pool.noneUp(), 'down')
  t.equal(await pool.healthy(), false, "its 200 on /healthz is no renderer's pass")
  t.ok(pool.noneUp(), 'and it stays down')
  t.same(impostor.seen, ['/', '/healthz'])
})

t.test('a renderer marked down is back in turn once its health check passes; none left is an error', { timeout: 20_000 }, async (t) => {
  // The one port picked free and bound later, as the subject is a renderer that comes up at an address already named.
  const port = await freePort()
  const changes = callsOf<[origin: string, up: boolean, reason: string]>()
  const pool = new RendererPool([new URL(`http://127.0.0.1:${port}`)], 2000, { probeIntervalMs: 50, dnsRefreshMs: 60_000, onMemberChange: changes.record })
  t.teardown(() => pool.close())
  await t.rejects(renderText(pool), { code: 'ECONNREFUSED' }, 'nothing listens yet')
  t.same(pool.list()[0]?.up, false)
  const readmitted = changes.next((_origin, up) => up)
  await fakeRenderer(t, '127.0.0.1', port, 'a')
  t.same(await readmitted, [`http://127.0.0.1:${port}`, true, 'health check passed'], 'the probe re-admits it')
  t.same(pool.list()[0]?.up, true)
  t.equal((await renderText(pool)).text, '<p>a</p>')
})

t.test('localhost through the system resolver: each of its addresses a member, named localhost', async (t) => {
  const a = await fakeRenderer(t, '127.0.0.1', 0, 'a')
  const { port } = a
  const pool = new RendererPool([new URL(`http://localhost:${port}`)], 2000, { probeIntervalMs: 60_000, dnsRefreshMs: 60_000 })
  t.teardown(() => pool.close())
  // ::1 too where the host has it; nothing listens there, so that member is skipped.
  for (let i = 0; i < 3; i++) t.equal((await renderText(pool)).text, '<p>a</p>')
  t.ok(pool.list().some((m) => m.origin === `http://127.0.0.1:${port}`))
  t.ok(pool.list().every((m) => m.host === `localhost:${port}`))
  t.same([...new Set(a.seen)], [`localhost:${port}`])
})

t.test('a host name that does not resolve is told at most once per 30 s per host', { timeout: 20_000 }, async (t) => {
  // Never connected to: no name resolves.
  const port = 3001
  let clock = 1_000_000
  const told: string[] = []
  // The pool's timers are unref'd and nothing here listens: this keeps the process up while the look-ups repeat.
  const alive = setInterval(() => undefined, 1000)
  t.teardown(() => clearInterval(alive))
  const refreshes = callsOf<[members: PoolMember[], failures: { url: string; error: unknown }[]]>()
  const pool = new RendererPool([new URL(`http://renderer-a.internal:${port}`), new URL(`http://renderer-b.internal:${port}`)], 2000, {
    ...options,
    now: () => clock,
    onRefresh: refreshes.record,
    onLookupFailed: (host) => told.push(host),
    lookup: async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })
    },
  })
  t.teardown(() => pool.close())
  // The first look-up and four repeats, all failing, within the same 30 s.
  let failedRounds = 0
  await refreshes.next((_members, failures) => failures.length === 2 && ++failedRounds === 5)
  t.same(told.sort(), ['renderer-a.internal', 'renderer-b.internal'], 'each host told once, however often its look-up fails')
  clock += 29_999
  await refreshes.next((_members, failures) => failures.length === 2)
  t.equal(told.length, 2, 'not again within 30 s')
  clock += 1
  await refreshes.next((_members, failures) => failures.length === 2)
  t.equal(told.length, 4, 'again once 30 s have passed, once per host')
})

t.test('a page with its length comes as one buffer with its headers; a streamed one as a stream whose dropping ends the renderer\'s request', async (t) => {
  const held = { res: undefined as ServerResponse | undefined, closed: undefined as Promise<void> | undefined }
  const { port } = await fakeRenderer(t, '127.0.0.1', 0, 'whole', (req, res) => {
    if (req.url === '/whole') {
      const page = Buffer.from('<p>whole</p>'.repeat(5000))
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': page.length, 'x-render-outcome': 'complete', ...MARK })
      // In two writes: the gateway's buffer is the whole page all the same.
      res.write(page.subarray(0, 1000))
      setImmediate(() => res.end(page.subarray(1000)))
      return
    }
    // Streamed: the shell now, the rest never (a slow Suspense boundary); its trailer would come at the end.
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', trailer: 'x-render-outcome', ...MARK })
    res.write('<p>shell</p>')
    held.res = res
    held.closed = new Promise((resolve) => res.once('close', resolve))
  })
  const pool = new RendererPool([new URL(`http://127.0.0.1:${port}`)], 30_000, { probeIntervalMs: 60_000, dnsRefreshMs: 60_000 })
  t.teardown(() => pool.close())

  const whole = await pool.render('/whole', { accept: 'text/html' }, BODY)
  t.ok(Buffer.isBuffer(whole.body), 'a page with its length is one buffer')
  t.equal((whole.body as Buffer).toString('utf8'), '<p>whole</p>'.repeat(5000), 'all of it, in order')
  t.equal(whole.headers['x-render-outcome'], 'complete', 'with its headers')

  const streamed = await pool.render('/streamed', { accept: 'text/html' }, BODY)
  t.notOk(Buffer.isBuffer(streamed.body), 'a page without a length past the commit window is a stream')
  const body = streamed.body as import('node:stream').Readable
  const first = await new Promise<Buffer>((resolve) => body.once('data', resolve))
  t.equal(first.toString('utf8'), '<p>shell</p>', 'starting with what the renderer sent so far')
  t.equal(held.res?.writableEnded, false, 'the renderer is still rendering')
  body.destroy()
  await held.closed
  t.pass("dropping the stream closed the renderer's request")
})

/**
 * A renderer's stand-in whose behaviour the test switches: `answer` (pages and
 * /healthz as told), `reset` (every connection dropped as it is accepted: a
 * renderer dying) or `hang` (requests taken, never answered: a hung renderer);
 * `resetNextRequests` drops the sockets of that many requests as they arrive.
 * It counts the connections it accepted and the requests it read, by path.
 */
async function switchableRenderer(t: Test) {
  const state = { mode: 'answer' as 'answer' | 'reset' | 'hang', healthy: true, connections: 0, pages: 0, probes: 0, resetNextRequests: 0 }
  const server: Server = createServer((req, res) => {
    if (req.url === '/healthz') state.probes++
    else state.pages++
    // A kept-alive socket closed as a request arrives on it: the race of an idle timeout with a reuse.
    if (state.resetNextRequests > 0) {
      state.resetNextRequests--
      req.socket.destroy()
      return
    }
    if (state.mode === 'hang') return
    if (req.url === '/healthz') res.writeHead(state.healthy ? 200 : 503, { 'content-type': 'application/json', ...MARK }).end(HEALTHY)
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...MARK }).end('<p>page</p>')
  })
  server.on('connection', (socket) => {
    state.connections++
    if (state.mode === 'reset') socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  return {
    state,
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    /** Ends the kept-alive connections, as a renderer that stops does. */
    dropConnections: () => server.closeAllConnections(),
  }
}

/**
 * Probe timers the test fires by hand: nothing is probed unless the test says
 * so, and each probe's next delay is read where the pool schedules it.
 */
function manualTimers() {
  const pending = new Map<number, { ms: number; callback: () => void }>()
  const scheduled = callsOf<[ms: number]>()
  let id = 0
  const timers: ProbeTimers = {
    setTimeout: (callback, ms) => {
      pending.set(++id, { ms, callback })
      scheduled.record(ms)
      return id
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  }
  return {
    timers,
    /** The delays of the probes scheduled now. */
    delays: () => [...pending.values()].map((entry) => entry.ms),
    /** Runs the one pending probe; resolves with the delay of the probe its result schedules. */
    async fire(): Promise<number> {
      const [entry, ...others] = [...pending.entries()]
      if (!entry || others.length > 0) throw new Error(`one pending probe expected, ${pending.size} found`)
      pending.delete(entry[0])
      const next = scheduled.next(() => true)
      entry[1].callback()
      return (await next)[0]
    },
  }
}

const UNAVAILABLE = { code: 'RENDERER_UNAVAILABLE' }

t.test('a renderer that failed a render is sent no connection until a probe passes; with none up a render fails at once', async (t) => {
  const renderer = await switchableRenderer(t)
  const probes = manualTimers()
  const changes: string[] = []
  const pool = new RendererPool([renderer.url], 2000, {
    probeIntervalMs: 2000,
    dnsRefreshMs: 60_000,
    timers: probes.timers,
    random: () => 0,
    onMemberChange: (_origin, up, reason) => changes.push(`${up ? 'up' : 'down'} ${reason}`),
  })
  t.teardown(() => pool.close())
  t.equal((await renderText(pool)).text, '<p>page</p>')
  t.same(probes.delays(), [2000], 'an up member is probed at the interval')

  renderer.state.mode = 'reset'
  renderer.dropConnections()
  await t.rejects(renderText(pool), { code: /^(ECONNRESET|UND_ERR_SOCKET)$/ }, 'the renderer drops the render')
  t.same(pool.list()[0]?.up, false, 'and is marked down')
  t.equal(pool.noneUp(), true, 'none up: pages need not gather data for a render')
  t.same(probes.delays(), [250], 'its first probe soon')
  const connections = renderer.state.connections
  for (let i = 0; i < 10; i++) await t.rejects(renderText(pool), UNAVAILABLE, 'none up: RendererUnavailableError')
  t.equal(renderer.state.connections, connections, 'without a connection attempt')

  renderer.state.mode = 'answer'
  t.equal(await probes.fire(), 2000, 'the probe passes: probed at the interval again')
  t.same(pool.list()[0]?.up, true, 'back in turn')
  t.equal(pool.noneUp(), false)
  t.equal((await renderText(pool)).text, '<p>page</p>', 'and rendering')
  t.match(changes, [/^down (ECONNRESET|UND_ERR_SOCKET)$/, 'up health check passed'], 'each change told once')
  t.equal(changes.length, 2)
})

t.test('a kept-alive socket reset as it is reused: the render goes again on a new connection, and a lone renderer stays in turn', async (t) => {
  const renderer = await switchableRenderer(t)
  const probes = manualTimers()
  const changes: string[] = []
  const pool = new RendererPool([renderer.url], 2000, { probeIntervalMs: 2000, dnsRefreshMs: 60_000, timers: probes.timers, onMemberChange: (_origin, up, reason) => changes.push(`${up ? 'up' : 'down'} ${reason}`) })
  t.teardown(() => pool.close())
  t.equal((await renderText(pool)).text, '<p>page</p>', 'a render opens the kept-alive connection')
  renderer.state.resetNextRequests = 1
  t.equal((await renderText(pool)).text, '<p>page</p>', 'the reset render is sent again and answered')
  t.equal(renderer.state.pages, 3, 'three requests reached it: the first, the reset one and its retry')
  t.equal(renderer.state.connections, 2, 'the retry on a new connection')
  t.same(pool.list()[0]?.up, true, 'still in turn')
  t.same(changes, [], 'never marked down')
  // Once per render: a renderer that resets every request is down after its retry.
  renderer.state.resetNextRequests = 2
  await t.rejects(renderText(pool), { code: /^(ECONNRESET|UND_ERR_SOCKET)$/ })
  t.same(pool.list()[0]?.up, false, 'reset twice in one render: down')
})

t.test('a hung renderer (takes the request, never answers) is skipped after one render timeout; the others take its turn', async (t) => {
  const hung = await switchableRenderer(t)
  hung.state.mode = 'hang'
  const good = await switchableRenderer(t)
  const probes = manualTimers()
  // The render timeout (headers) is what finds a hung renderer out; 300 ms keeps the test short.
  const pool = new RendererPool([hung.url, good.url], 300, { probeIntervalMs: 2000, dnsRefreshMs: 60_000, timers: probes.timers })
  t.teardown(() => pool.close())
  await t.rejects(renderText(pool), { code: 'UND_ERR_HEADERS_TIMEOUT' }, 'the first render waits on the hung one, and is not retried')
  t.same(pool.list().map((member) => member.up), [false, true], 'the hung one is down, the other up')
  for (let i = 0; i < 6; i++) t.equal((await renderText(pool)).text, '<p>page</p>', 'the other renders')
  t.equal(hung.state.pages, 1, 'the hung one was sent one render, no more')
  t.equal(good.state.pages, 6)

  good.state.mode = 'reset'
  good.dropConnections()
  await t.rejects(renderText(pool), { code: /^(ECONNRESET|UND_ERR_SOCKET)$/ }, 'the other goes down too')
  const connections = [hung.state.connections, good.state.connections]
  for (let i = 0; i < 10; i++) await t.rejects(renderText(pool), UNAVAILABLE)
  t.same([hung.state.connections, good.state.connections], connections, 'none up: no connection to either')
  t.equal(hung.state.pages, 1)
})

t.test("a down renderer's probes back off from 250 ms, doubling, to the probe interval, with jitter; a passing probe restores the interval", async (t) => {
  const renderer = await switchableRenderer(t)
  renderer.state.healthy = false
  const probes = manualTimers()
  let random = 0
  const pool = new RendererPool([renderer.url], 2000, { probeIntervalMs: 3000, dnsRefreshMs: 60_000, timers: probes.timers, random: () => random })
  t.teardown(() => pool.close())
  t.equal(await pool.healthy(), false, 'the readiness check fails')
  t.same(probes.delays(), [250], 'the member is down; first probe in 250 ms')
  const delays: number[] = []
  for (let i = 0; i < 5; i++) delays.push(await probes.fire())
  t.same(delays, [500, 1000, 2000, 3000, 3000], 'doubling to the interval')
  t.equal(renderer.state.probes, 6, 'one health check per probe (and the readiness check)')
  random = 1
  t.equal(await probes.fire(), 1500, 'jitter takes up to half a delay off')
  t.equal(renderer.state.pages, 0, 'no render was sent meanwhile')

  renderer.state.healthy = true
  t.equal(await probes.fire(), 3000, 'a passing probe: the interval again, no jitter')
  t.same(pool.list()[0]?.up, true)
  renderer.state.healthy = false
  random = 0
  t.equal(await probes.fire(), 250, 'a later failure starts the back-off over')
})

/**
 * A renderer closing on SIGTERM answers its probes 503 (or refuses them) but finishes the renders it has: those are
 * left to complete, and the member stays out of turn afterwards. One whose probe goes unanswered hangs: its renders
 * in flight are given up at once (RENDERER_DOWN), not at the render timeout.
 */
t.test('marked down as closing, a renderer keeps its renders in flight; found hung or out of reach, it has them given up', async (t) => {
  const held: ServerResponse[] = []
  const arrived = callsOf<[]>()
  const probe = { mode: 'ok' as 'ok' | 'closing' | 'hang' | 'stranger' }
  const server: Server = createServer((req, res) => {
    if (req.url === '/healthz') {
      if (probe.mode === 'hang') return
      // What a gateway cut from the renderers' network met at their addresses: a proxy's empty 404.
      if (probe.mode === 'stranger') return void res.writeHead(404, { 'content-length': 0 }).end()
      res.writeHead(probe.mode === 'ok' ? 200 : 503, { 'content-type': 'application/json', ...MARK }).end(HEALTHY)
      return
    }
    held.push(res)
    arrived.record()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise((resolve) => server.close(resolve))
  })
  const probes = manualTimers()
  const changes: string[] = []
  // A render timeout no busy machine reaches: what ends a render here is the renderer or the pool, never the clock.
  const pool = new RendererPool([new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)], 120_000, {
    probeIntervalMs: 2000,
    dnsRefreshMs: 60_000,
    timers: probes.timers,
    onMemberChange: (_origin, up, reason) => changes.push(`${up ? 'up' : 'down'} ${reason}`),
  })
  t.teardown(() => pool.close())

  const reached = arrived.next(() => true)
  const closingRender = renderText(pool)
  await reached
  probe.mode = 'closing'
  await probes.fire()
  t.same(changes, ['down health check failed'], 'the closing renderer is marked down by its probe')
  held.shift()?.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...MARK }).end('<p>finished</p>')
  t.same(await closingRender, { status: 200, text: '<p>finished</p>' }, 'the render in flight completes')
  t.same(pool.list()[0]?.up, false, 'and the closing renderer stays out of turn until a probe passes')

  probe.mode = 'ok'
  await probes.fire()
  t.same(pool.list()[0]?.up, true, 'back in turn')
  const reachedAgain = arrived.next(() => true)
  const hungRender = renderText(pool)
  await reachedAgain
  probe.mode = 'hang'
  // The probe's own timeout (RENDERER_PROBE_TIMEOUT_MS) finds the hang out.
  await probes.fire()
  await t.rejects(hungRender, { code: 'RENDERER_DOWN' }, 'the render in flight to the hung renderer is given up')
  t.same(changes, ['down health check failed', 'up health check passed', 'down health check unanswered'])

  probe.mode = 'ok'
  await probes.fire()
  const reachedLast = arrived.next(() => true)
  const lostRender = renderText(pool)
  await reachedLast
  probe.mode = 'stranger'
  await probes.fire()
  await t.rejects(lostRender, { code: 'RENDERER_DOWN' }, 'a probe answered by a stranger: the render in flight is given up too')
  t.same(changes.slice(3), ['up health check passed', 'down health check answered by something else'])
})
