import { type Server, createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { Agent, request } from 'undici'
import { DEFAULT_SITE_HANDLE as P } from '../shared/constants.ts'
import { shippedContent, titleOf } from './helpers/content.ts'
import { startFaultUpstream } from './helpers/fault-upstream.ts'
import { h1Of } from './helpers/html.ts'
import { freePort, retryOnAddressInUse } from './helpers/ports.ts'
import { type Started, listening, startProcess, waitForHttp } from './helpers/processes.ts'

// The built services as separate processes, as the containers run them (`npm run start:*` is `node dist/*.js`).

const store = shippedContent()
const PAGES: [path: string, title: string][] = [
  ['/', titleOf(store, `${P}Home`)],
  ['/over-ons', titleOf(store, `${P}About`)],
  ['/contact', titleOf(store, `${P}Contact`)],
  ['/werken-bij', titleOf(store, `${P}JobsOverview`)],
  ['/actueel', titleOf(store, `${P}TopicalOverview`)],
]
const REQUEST_TIMEOUT_MS = 10_000
const EXIT_DEADLINE_MS = 10_000

const base = (port: number): string => `http://127.0.0.1:${port}`

function startRenderer(t: Test, port: number, gatewayPort: number, env: Record<string, string> = {}): Started {
  const renderer = startProcess('dist/renderer.js', { RENDERER_PORT: String(port), GATEWAY_URL: base(gatewayPort), LOG_LEVEL: 'warn', ...env })
  t.teardown(() => renderer.stop('SIGKILL'))
  return renderer
}

function startGateway(t: Test, port: number, internalPort: number, rendererUrls: string[], env: Record<string, string> = {}): Started {
  const gateway = startProcess('dist/gateway.js', {
    HOST: '127.0.0.1',
    PORT: String(port),
    INTERNAL_PORT: String(internalPort),
    RENDERER_URL: rendererUrls.join(','),
    RENDERER_PROBE_INTERVAL_MS: '200',
    PAGE_CACHE: 'false',
    // Thousands of renders from one address: the per-client limits are lifted; and a loaded machine's renders may
    // wait behind the slots of the renderers left for longer than the admission queue's 1.5 s: what is tested here is failover.
    API_RATE_LIMIT: '1000000',
    CLIENT_WORK_BUDGET: '1000000000',
    ADMISSION_QUEUE_MS: '30000',
    LOG_LEVEL: 'warn',
    ...env,
  })
  t.teardown(() => gateway.stop('SIGKILL'))
  return gateway
}

/**
 * Renderers on ports of the kernel's choosing, then the gateway, all listening
 * before the test goes on (their "listening" lines are at info). The gateway's
 * own port is named to the renderers before it binds it: if something took
 * it meanwhile (EADDRINUSE), all start again on another.
 */
async function startGatewayAndRenderers(t: Test, renderers: (gatewayPort: number) => Started[], rendererUrls: string[] = [], env: Record<string, string> = {}) {
  return retryOnAddressInUse(async () => {
    const gatewayPort = await freePort()
    const started = renderers(gatewayPort)
    const rendererPorts = (await Promise.all(started.map((renderer) => listening(renderer, 'renderer')))).map((line) => line.port)
    const gateway = startGateway(t, gatewayPort, 0, [...rendererUrls, ...rendererPorts.map(base)], { LOG_LEVEL: 'info', ...env })
    try {
      const { internal } = await listening(gateway, 'gateway')
      return { gatewayPort, rendererPorts, renderers: started, gateway, url: base(gatewayPort), internalUrl: internal ?? '' }
    } catch (error) {
      await Promise.all(started.map((renderer) => renderer.stop('SIGKILL')))
      throw error
    }
  })
}

/** Gateway and renderers on fresh loopback ports, all listening before the test goes on. */
const startServices = (t: Test, renderers: number, env: Record<string, string> = {}) =>
  startGatewayAndRenderers(t, (gatewayPort) => Array.from({ length: renderers }, () => startRenderer(t, 0, gatewayPort, { LOG_LEVEL: 'info' })), [], env)

interface Answer {
  path: string
  status: number | string
  complete: boolean
}

/** One bounded page request; a hang, a reset or a truncated page is an answer too, never an exception. */
async function getPage(dispatcher: Agent, url: string, path: string, title: string): Promise<Answer> {
  try {
    const response = await request(`${url}${path}`, {
      dispatcher,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      headers: { 'accept-encoding': 'identity' },
    })
    const html = await response.body.text()
    return { path, status: response.statusCode, complete: html.trimEnd().endsWith('</html>') && h1Of(html) === title }
  } catch (error) {
    return { path, status: (error as { code?: string }).code ?? (error as Error).name, complete: false }
  }
}

/**
 * `total` page requests, `concurrency` at a time, round the page list;
 * `at(n)` runs once when n answers are in, without stopping the stream.
 */
async function load(url: string, total: number, concurrency: number, at: Record<number, () => Promise<void>> = {}): Promise<Answer[]> {
  const dispatcher = new Agent({ connections: concurrency, keepAliveTimeout: 5000 })
  const answers: Answer[] = []
  const events: Promise<void>[] = []
  let issued = 0
  const worker = async (): Promise<void> => {
    while (issued < total) {
      const [path, title] = PAGES[issued++ % PAGES.length] as [string, string]
      answers.push(await getPage(dispatcher, url, path, title))
      const event = at[answers.length]
      if (event) events.push(event())
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  await Promise.all(events)
  await dispatcher.close()
  return answers
}

const failures = (answers: Answer[]): Answer[] => answers.filter((a) => a.status !== 200 || !a.complete)

function exitWithin(started: Started, ms: number): Promise<number | null | 'still running'> {
  return Promise.race([
    new Promise<number | null>((resolve) => {
      if (started.child.exitCode !== null) resolve(started.child.exitCode)
      else started.child.once('exit', (code) => resolve(code))
    }),
    new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), ms).unref()),
  ])
}

t.test('three renderers; one killed (SIGKILL) amid concurrent page requests: every answer a complete 200', async (t) => {
  const services = await startServices(t, 3)
  const victim = services.renderers[1] as Started
  const answers = await load(services.url, 600, 20, {
    150: async () => {
      await victim.stop('SIGKILL')
    },
  })
  t.equal(answers.length, 600)
  t.same(failures(answers), [], 'no failed, truncated or hung answer')
  t.not(victim.child.signalCode, null, 'the renderer was killed mid-stream')
})

t.test('load run over gateway and two renderers, one stopped (SIGTERM) and restarted halfway: zero failed responses', async (t) => {
  const services = await startServices(t, 2)
  const port = services.rendererPorts[0] as number
  let restarted: Started | undefined
  const answers = await load(services.url, 3000, 20, {
    1000: async () => {
      ;(services.renderers[0] as Started).child.kill('SIGTERM')
      t.equal(await exitWithin(services.renderers[0] as Started, EXIT_DEADLINE_MS), 0, 'the renderer finished its renders and exited cleanly')
      restarted = startRenderer(t, port, services.gatewayPort, { LOG_LEVEL: 'info' })
      await waitForHttp(`${base(port)}/healthz`)
    },
  })
  t.equal(answers.length, 3000)
  t.same(failures(answers), [], 'zero failed responses')
  t.ok(restarted, 'the renderer was restarted during the run')
  t.match(restarted?.output() ?? '', /"statusCode":200/, 'the restarted renderer is back in turn')
})

t.test('SIGTERM to the gateway with a slow page in flight: the page completes, new pages are refused, exit within 10 s', async (t) => {
  const upstream = await startFaultUpstream()
  t.teardown(() => upstream.close())
  const services = await startServices(t, 1, { CRAFT_API_URL: upstream.url, QUERY_CACHE: 'false' })
  const warm = await getPage(new Agent(), services.url, '/', PAGES[0]?.[1] as string)
  t.same(warm, { path: '/', status: 200, complete: true })

  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  let holding = false
  // The page's own query is held, so its deferred part (the renderer's second `_payload.json`
  // call, for LatestArticles) reaches the gateway only after SIGTERM.
  upstream.behave = (call) => {
    if (call.operationName !== 'HomePage') return { kind: 'pass' }
    holding = true
    return { kind: 'hold', until: held }
  }
  const inFlight = getPage(new Agent(), services.url, '/', PAGES[0]?.[1] as string)
  for (let i = 0; i < 100 && !holding; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  t.ok(holding, 'the page is waiting for the CMS')
  const callsBefore = upstream.calls.length

  const signalled = Date.now()
  services.gateway.child.kill('SIGTERM')
  await new Promise((resolve) => setTimeout(resolve, 300))
  const refused = await request(`${services.url}/over-ons`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  const refusedHtml = await refused.body.text()
  t.equal(refused.statusCode, 503, 'a new page is refused while draining')
  t.match(refusedHtml, 'De website is even niet beschikbaar', 'with the Dutch 503 page')
  const ready = await request(`${services.internalUrl}/readyz`)
  await ready.body.dump()
  t.equal(ready.statusCode, 503, '/readyz says not ready, so a load balancer stops sending')

  release()
  t.same(await inFlight, { path: '/', status: 200, complete: true }, 'the page in flight completes')
  t.ok(upstream.calls.slice(callsBefore).some((call) => call.operationName === 'LatestArticles'), 'it needed the gateway after SIGTERM')
  t.equal(await exitWithin(services.gateway, EXIT_DEADLINE_MS), 0, 'the gateway exits cleanly')
  t.ok(Date.now() - signalled < EXIT_DEADLINE_MS, 'within 10 s')
  await t.rejects(request(`${services.url}/healthz`), { code: 'ECONNREFUSED' }, 'and is gone')
})

t.test('SIGTERM to a renderer with a slow render in flight: the render completes, the renderer exits', async (t) => {
  const upstream = await startFaultUpstream()
  t.teardown(() => upstream.close())
  const services = await startServices(t, 1, { CRAFT_API_URL: upstream.url, QUERY_CACHE: 'false' })
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  upstream.behave = (call) => (call.operationName === 'LatestArticles' ? { kind: 'hold', until: held } : { kind: 'pass' })
  const inFlight = getPage(new Agent(), services.url, '/', PAGES[0]?.[1] as string)
  for (let i = 0; i < 100 && !upstream.calls.some((c) => c.operationName === 'LatestArticles'); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  const renderer = services.renderers[0] as Started
  renderer.child.kill('SIGTERM')
  await new Promise((resolve) => setTimeout(resolve, 200))
  release()
  t.same(await inFlight, { path: '/', status: 200, complete: true }, 'the render in flight completes')
  t.equal(await exitWithin(renderer, EXIT_DEADLINE_MS), 0, 'the renderer exits cleanly')
})

t.test('a renderer answering 503 while it closes is skipped', async (t) => {
  let closingHits = 0
  // What a Fastify renderer answers once close() has begun (return503OnClosing).
  const closing: Server = createServer((req, res) => {
    if (req.url !== '/healthz') closingHits++
    res.writeHead(503, { 'content-type': 'application/json', connection: 'close' })
    res.end('{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}')
  })
  await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => closing.close(resolve)))
  const closingPort = (closing.address() as AddressInfo).port
  const services = await startGatewayAndRenderers(t, (gatewayPort) => [startRenderer(t, 0, gatewayPort, { LOG_LEVEL: 'info' })], [base(closingPort)])
  const answers = await load(services.url, 40, 4)
  t.same(failures(answers), [], 'every page rendered by the other renderer')
  t.ok(closingHits <= 4, `the closing renderer is skipped once found out (${closingHits} tries)`)
})
