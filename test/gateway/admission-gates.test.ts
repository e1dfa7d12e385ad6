import { type IncomingMessage, type Server, createServer } from 'node:http'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION, RENDER_TAGS_HEADER } from '../../shared/render-protocol/index.ts'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { request } from 'undici'
import { CSP_NONCE_HEADER, RENDERER_BUILD_HEADER } from '../../shared/constants.ts'
import { startFaultUpstream } from '../helpers/fault-upstream.ts'
import { get } from '../helpers/http.ts'
import { startSystem } from '../helpers/system.ts'
import { until } from '../helpers/until.ts'

async function metric(internalUrl: string, kind: string, outcome: string): Promise<number> {
  const text = await (await request(`${internalUrl}/metrics`)).body.text()
  const line = text.split('\n').find((row) => row.startsWith('admission_total{') && row.includes(`kind="${kind}"`) && row.includes(`outcome="${outcome}"`))
  return Number(line?.split(' ').pop() ?? 0)
}

t.test('at most CMS_CONCURRENCY calls reach the CMS; past the queue a request gets a stale answer, or a fast 503', async (t) => {
  const upstream = await startFaultUpstream()
  let holding = false
  let release = (): void => undefined
  const held = new Promise<void>((resolve) => (release = resolve))
  let callsWhileHolding = 0
  upstream.behave = () => {
    if (!holding) return { kind: 'pass' }
    callsWhileHolding++
    return { kind: 'hold', until: held }
  }
  // Query answers are past their TTL at once and never refreshed in the background: a stored one only stands in for a failure.
  // The wait is long enough for a loaded machine's page (its calls queue behind two slots too); the held calls never end.
  const system = await startSystem({ CRAFT_API_URL: upstream.url, CMS_CONCURRENCY: '2', ADMISSION_QUEUE_MS: '3000', CACHE_TTL_MS: '0', CACHE_SWR_MS: '0' })
  t.teardown(async () => {
    release()
    await system.close()
    await upstream.close()
  })
  const gates = system.gateway.admission
  t.equal((await get(`${system.url}/kantoren/_payload.json`)).status, 200, 'the live data, stored')
  await until(() => gates.cms.inFlight === 0, 'nothing in flight')

  holding = true
  // Previews bypass every cache: each asks the CMS several things at once.
  const previews = [1, 2, 3].map((n) => get(`${system.url}/over-ons/_payload.json`, { headers: { 'x-craft-token': `held-${n}` } }))
  await until(() => callsWhileHolding === 2 && gates.cms.waiting > 0, 'two calls held, the rest queued')
  t.equal(gates.cms.inFlight, 2)

  const stale = await get(`${system.url}/kantoren/_payload.json`)
  t.equal(stale.status, 200, 'while the CMS is saturated, a stored answer stands in')
  t.equal(stale.headers['x-cache'], 'STALE')
  // The previews whose calls only queued are answered while the two calls are still held.
  const busy: Awaited<ReturnType<typeof get>>[] = []
  for (const preview of previews) void preview.then((answer) => busy.push(answer))
  await until(() => busy.length >= 2, 'two previews answered')
  for (const preview of busy) {
    t.equal(preview.status, 503, 'a preview with no stored answer: 503 once its calls waited their time in the queue')
    t.equal(JSON.parse(preview.body).error?.statusCode, 503)
  }
  t.equal(await system.gateway.content.ping(), true, 'readiness: a CMS with every slot taken is there, only busy')
  t.equal(callsWhileHolding, 2, 'and the CMS never had more than two calls at once')
  t.ok((await metric(system.internalUrl, 'cms', 'refused')) > 0, 'refusals counted in /metrics')
  t.ok((await metric(system.internalUrl, 'cms', 'admitted')) > 0, 'admissions too')
  release()
  for (const preview of await Promise.all(previews)) t.ok([200, 503].includes(preview.status), 'every preview ends once the held calls are answered')
  await until(() => gates.cms.inFlight === 0, 'the held calls done')
})

interface HeldRenderer {
  url: string
  received: number
  inFlight: number
  mostInFlight: number
  holding: boolean
  release(): void
  close(): Promise<void>
}

/** A renderer stand-in that answers a whole page, or holds renders until released. */
async function startHeldRenderer(): Promise<HeldRenderer> {
  let waiting: (() => void)[] = []
  const renderer: HeldRenderer = {
    url: '',
    received: 0,
    inFlight: 0,
    mostInFlight: 0,
    holding: false,
    release() {
      renderer.holding = false
      for (const go of waiting) go()
      waiting = []
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
  const answer = async (req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> => {
    for await (const _chunk of req);
    // As a renderer answers: its build on every answer, and its health check's JSON.
    res.setHeader(RENDERER_BUILD_HEADER, 'test-build')
    res.setHeader(RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION)
    if (req.url === '/healthz') return void res.writeHead(200).end(`{"status":"ok","protocol":"${RENDER_PROTOCOL_VERSION}"}`)
    renderer.received++
    renderer.inFlight++
    renderer.mostInFlight = Math.max(renderer.mostInFlight, renderer.inFlight)
    if (renderer.holding) await new Promise<void>((resolve) => waiting.push(resolve))
    const body = `<!DOCTYPE html><html lang="nl"><head><title>x</title></head><body><h1>${req.url}</h1></body></html>`
    renderer.inFlight--
    // A page as a renderer writes it: with its CSP nonce (an answer without one is a refusal, not a page) and the tags of what it shows.
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-render-outcome': 'complete', [RENDER_TAGS_HEADER]: 'stand-in', [CSP_NONCE_HEADER]: 'stand-in-nonce' }).end(body)
  }
  const server: Server = createServer((req, res) => void answer(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  renderer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return renderer
}

t.test('at most RENDER_CONCURRENCY renders per renderer: the next waits in the queue, past the queue a stored page or a fast 503', async (t) => {
  const renderer = await startHeldRenderer()
  // One slot and one place in the queue; the wait is long, so that only the queue's length decides here.
  const system = await startSystem({ RENDERER_URL: renderer.url, RENDER_CONCURRENCY: '1', ADMISSION_QUEUE_LENGTH: '1', ADMISSION_QUEUE_MS: '60000', PAGE_CACHE_TTL_MS: '0', CACHE_SWR_MS: '0' })
  t.teardown(async () => {
    renderer.release()
    await system.close()
    await renderer.close()
  })
  const gates = system.gateway.admission
  t.equal((await get(`${system.url}/actueel`)).headers['x-cache'], 'MISS', 'a page rendered and stored')

  renderer.holding = true
  const first = get(`${system.url}/kantoren`)
  await until(() => renderer.inFlight === 1 && gates.renders.inFlight === 1, 'the first render held')
  const second = get(`${system.url}/over-ons`)
  await until(() => gates.renders.waiting === 1, 'the second render queued')
  t.equal(renderer.received, 2, 'the queued render has not reached the renderer')

  const third = await get(`${system.url}/werken-bij`)
  t.equal(third.status, 503, 'past the queue, a page never stored: 503 at once')
  t.match(third.headers['content-type'], /^text\/html/, 'the Dutch page')
  t.match(third.body, /niet beschikbaar/)
  const stored = await get(`${system.url}/actueel`)
  t.equal(stored.status, 200, 'past the queue, a stored page stands in')
  t.equal(stored.headers['x-cache'], 'STALE')

  renderer.release()
  t.equal((await first).status, 200)
  t.equal((await second).status, 200, 'the queued render ran once the first was done')
  t.equal(renderer.mostInFlight, 1, 'the renderer never had two renders at once')
  t.ok((await metric(system.internalUrl, 'render', 'queued')) >= 1, 'the wait counted in /metrics')
  t.ok((await metric(system.internalUrl, 'render', 'refused')) >= 2, 'and the refusals')
})

t.test('a streamed page holds its render slot until its last byte, then gives it back', async (t) => {
  const upstream = await startFaultUpstream()
  let release = (): void => undefined
  const latestHeld = new Promise<void>((resolve) => (release = resolve))
  upstream.behave = (call) => (call.operationName === 'LatestArticles' ? { kind: 'hold', until: latestHeld } : { kind: 'pass' })
  const system = await startSystem({ CRAFT_API_URL: upstream.url, RENDER_CONCURRENCY: '1', ADMISSION_QUEUE_MS: '60000' })
  t.teardown(async () => {
    release()
    await system.close()
    await upstream.close()
  })
  const gates = system.gateway.admission
  // The home page's latest news is held: its shell streams, the rest waits.
  const home = await request(`${system.url}/`)
  t.equal(home.statusCode, 200)
  const reading = home.body.text()
  const next = get(`${system.url}/kantoren`)
  await until(() => gates.renders.waiting === 1, 'the next render queued behind the streaming page')
  t.equal(gates.renders.inFlight, 1)
  release()
  t.match(await reading, /<\/html>/, 'the streamed page ended')
  t.equal((await next).status, 200, 'and gave its slot to the next render')
  await until(() => gates.renders.inFlight === 0, 'every slot given back')
})
