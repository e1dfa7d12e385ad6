import { type Server, type Socket, connect, createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { Agent, request } from 'undici'
import { startSystem } from '../helpers/system.ts'
import { until as reached } from '../helpers/until.ts'

/**
 * A TCP proxy in front of the renderer. `pass` forwards; `hang` takes every
 * connection and never writes a byte, as a renderer whose host stopped
 * answering (loopback refuses a closed port at once, which is the fast case).
 * While hanging it keeps the request lines it read, to tell probes from renders.
 */
async function rendererProxy(t: Test) {
  const state = { mode: 'pass' as 'pass' | 'hang', freezeAtRender: false, target: undefined as URL | undefined, requestLines: [] as string[] }
  const open = new Set<Socket>()
  /** The connections being forwarded, each with the renderer's end. */
  const piped = new Map<Socket, Socket>()
  /** Reads what arrives on a hung connection, keeping its request lines; writes nothing back. */
  const requestLinesOf = (text: string): string[] => [...text.matchAll(/^(GET|POST|HEAD) (\S+) HTTP\/1\.1\r\n/gm)].map((match) => `${match[1]} ${match[2]}`)
  const swallow = (socket: Socket): void => {
    let text = ''
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1')
      state.requestLines.push(...requestLinesOf(text))
      text = text.slice(text.lastIndexOf('\n') + 1)
    })
  }
  const server: Server = createServer((socket) => {
    open.add(socket)
    socket.once('close', () => open.delete(socket))
    socket.on('error', () => undefined)
    if (state.mode === 'hang' || !state.target) return swallow(socket)
    const upstream = connect(Number(state.target.port), state.target.hostname)
    open.add(upstream)
    piped.set(socket, upstream)
    upstream.once('close', () => open.delete(upstream))
    upstream.on('error', () => socket.destroy())
    socket.on('data', (chunk: Buffer) => {
      if (state.mode !== 'pass') return
      const lines = requestLinesOf(chunk.toString('latin1'))
      if (state.freezeAtRender && lines.some((line) => !line.endsWith('/healthz'))) {
        freeze()
        state.requestLines.push(...lines)
        return
      }
      upstream.write(chunk)
    })
    upstream.pipe(socket)
    socket.once('close', () => {
      piped.delete(socket)
      upstream.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of open) socket.destroy()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  /**
   * From now on every connection hangs, the ones open now too (docker pause): nothing more is forwarded either way,
   * nothing is cut. A probe in flight is not failed by a cut, so the renderer is marked down only once a probe
   * times out (RENDERER_PROBE_TIMEOUT_MS), after the renders sent meanwhile.
   */
  const freeze = (): void => {
    state.mode = 'hang'
    state.requestLines.length = 0
    for (const [socket, upstream] of piped) {
      upstream.unpipe(socket)
      upstream.pause()
      swallow(socket)
    }
  }
  return {
    state,
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    /** From now on every connection hangs; the ones open now are cut, as when the renderer's process is gone. */
    hang() {
      state.mode = 'hang'
      state.requestLines.length = 0
      for (const socket of open) socket.destroy()
    },
    freeze,
    /**
     * Forwards everything until the first render arrives, then freezes (see freeze) with that render unanswered: the
     * render has reached the renderer that hangs, whatever the machine's speed, and no probe has failed before it.
     */
    freezeAtRender() {
      state.freezeAtRender = true
    },
  }
}

const STORED = ['/', '/kantoren', '/actueel', '/disclaimer', '/werken-bij']

t.test('every renderer hung: stored pages answer STALE without a render being sent, a never-stored one 503; the renderer is back once a probe passes', async (t) => {
  const proxy = await rendererProxy(t)
  // A page TTL of 0: every request asks a renderer first, so each one below goes the render path or waits behind one that does.
  const system = await startSystem({ PAGE_CACHE_TTL_MS: '0', RENDERER_PROBE_INTERVAL_MS: '200' }, (config) => {
    proxy.state.target = config.rendererUrls[0]
    config.rendererUrls = [proxy.url]
  })
  t.teardown(() => system.close())
  const logged = (msg: string): number => system.gatewayLogs.lines.filter((line) => line.msg === msg).length
  const until = async (what: string, done: () => boolean): Promise<void> => {
    await reached(done, what)
    t.ok(done(), what)
  }
  const agent = new Agent({ connections: 8 })
  t.teardown(() => agent.close())
  const get = async (path: string) => {
    const response = await request(`${system.url}${path}`, { dispatcher: agent })
    await response.body.dump()
    return { path, status: response.statusCode, xCache: response.headers['x-cache'] }
  }
  for (const path of STORED) t.match(await get(path), { status: 200, xCache: 'MISS' }, `${path} rendered and stored`)

  proxy.hang()
  // Found out by its probe (a health check that is never answered), in the background: no visitor waits on it.
  await until('the hung renderer is marked down', () => logged('renderer skipped') === 1)
  const rendersBefore = logged('no renderer answered; a stale page stands in')

  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => get(STORED[i % STORED.length] as string)))
  t.same(
    answers.filter((answer) => answer.status !== 200 || answer.xCache !== 'STALE'),
    [],
    'every stored page: 200 STALE',
  )
  t.ok(logged('no renderer answered; a stale page stands in') > rendersBefore, 'requests went the render path and had the stored page stand in')
  t.match(await get('/over-ons'), { status: 503 }, 'a page never stored: the fast 503')
  t.same(
    proxy.state.requestLines.filter((line) => line !== 'GET /healthz'),
    [],
    'no render reached the renderer after it was marked down: its connections carried health checks only',
  )
  // Marked down by a probe whose connection the hang cut, it is probed again on a new one: wait for that probe (on a loaded machine the 40 answers above can come before it).
  await until('its probes went on (in the background)', () => proxy.state.requestLines.length > 0)
  t.same(proxy.state.requestLines.filter((line) => line !== 'GET /healthz'), [], 'health checks only')

  proxy.state.mode = 'pass'
  await until('back in turn once a probe passes', () => logged('renderer back in turn') === 1)
  t.match(await get('/kantoren'), { status: 200, xCache: 'MISS' }, 'rendered again')
})

/**
 * A render already sent to a renderer that then hangs (docker pause) is given up as soon as the pool marks that
 * renderer down (its probe, which times out within the probe interval), not at RENDER_TIMEOUT_MS: with no other
 * renderer the stored page answers; with another one up, the render goes there. RENDER_TIMEOUT_MS is two minutes
 * here and the client gives up after 30 s, so a render that waits out its timeout fails the test.
 */
t.test('renders in flight to a renderer that hangs are given up when it is marked down: the stored page, or another renderer', { timeout: 90_000 }, async (t) => {
  const CLIENT_BOUND = { headersTimeout: 30_000, bodyTimeout: 30_000 }
  const start = async (withSecond: boolean) => {
    const proxy = await rendererProxy(t)
    // RENDER_STALL_MS as long as the render timeout: these renders are given up by the probe, not by the stall bound (renderer-stall.test.ts).
    const system = await startSystem({ PAGE_CACHE_TTL_MS: '0', RENDERER_PROBE_INTERVAL_MS: '300', RENDER_TIMEOUT_MS: '120000', RENDER_STALL_MS: '120000' }, (config) => {
      const [renderer] = config.rendererUrls
      proxy.state.target = renderer
      config.rendererUrls = withSecond && renderer ? [proxy.url, renderer] : [proxy.url]
    })
    t.teardown(() => system.close())
    const get = async (path: string) => {
      const response = await request(`${system.url}${path}`, CLIENT_BOUND)
      const text = await response.body.text()
      return { status: response.statusCode, xCache: response.headers['x-cache'], text }
    }
    return { proxy, system, get }
  }

  t.test('the only renderer hangs mid-render: the visitor gets the stored page', async (t) => {
    const { proxy, system, get } = await start(false)
    t.match(await get('/kantoren'), { status: 200, xCache: 'MISS' }, 'rendered and stored')
    proxy.hang()
    const answer = await get('/kantoren')
    t.match(answer, { status: 200, xCache: 'STALE' }, 'the stored page, once the renderer was marked down')
    // Usually the render reached the hung renderer and was given up; when a probe cut by hang() marked it down first, the render never went.
    const reached = proxy.state.requestLines.some((line) => line.startsWith('POST /kantoren') || line.startsWith('GET /kantoren'))
    t.comment(reached ? 'the render had reached the hung renderer and was given up' : 'the renderer was marked down before the render was sent')
    t.ok(
      system.gatewayLogs.lines.some((line) => line.msg === 'renderer skipped' && line.reason !== 'UND_ERR_HEADERS_TIMEOUT'),
      'marked down by its probe, not by the render timing out',
    )
  })

  t.test('one of two renderers hangs mid-render: the render is sent again to the other', async (t) => {
    const { proxy, get } = await start(true)
    t.match(await get('/over-ons'), { status: 200 }, 'both renderers in turn')
    // Frozen, not cut, and only once a render has reached it: a probe failed before any render was sent (cut in flight,
    // or timed out on a loaded machine) would mark the renderer down first, and nothing would be sent again.
    proxy.freezeAtRender()
    // Round robin: of four renders at once, some go to the hung renderer first.
    const pages = ['/kantoren', '/disclaimer', '/privacy', '/contact']
    const answers = await Promise.all(pages.map((path) => get(path)))
    t.match(answers, pages.map(() => ({ status: 200, xCache: 'MISS' })), 'all rendered, none waited out the render timeout')
    t.ok(
      proxy.state.requestLines.some((line) => !line.endsWith('/healthz')),
      'a render had reached the hung renderer',
    )
  })
})
