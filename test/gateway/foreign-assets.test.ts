import type { IncomingMessage, ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { listenOnLoopback } from '../helpers/ports.ts'
import { startSystem } from '../helpers/system.ts'
import { until } from '../helpers/until.ts'

/**
 * A renderer of another build, standing in for the renderers: it has one
 * bundle file, counts every /assets/ request it is asked, and holds them
 * while the test says so.
 */
const ITS_FILE = '/assets/app-OTHERBLD.js'
const ITS_BYTES = 'console.log("the other build")'

interface StandIn {
  url: string
  /** The real renderer it passes all else to, once the system has started it. */
  behind: string | undefined
  asked: string[]
  inFlight: number
  mostInFlight: number
  hold: boolean
  release(): void
}

async function standInRenderer(t: Test): Promise<StandIn> {
  const held: (() => void)[] = []
  const answer = (res: ServerResponse, path: string): void => {
    if (path === ITS_FILE) res.writeHead(200, { 'content-type': 'text/javascript', 'content-length': Buffer.byteLength(ITS_BYTES) }).end(ITS_BYTES)
    else res.writeHead(404, { 'content-length': 0 }).end()
  }
  const standIn: StandIn = {
    url: '',
    behind: undefined,
    asked: [],
    inFlight: 0,
    mostInFlight: 0,
    hold: false,
    release() {
      standIn.hold = false
      for (const go of held.splice(0)) go()
    },
  }
  const port = await listenOnLoopback(t, (req, res) => {
    const path = req.url ?? '/'
    if (req.method !== 'GET' || !path.startsWith('/assets/')) {
      // Everything else (health checks, the 404 page's render) from the real renderer behind it.
      void passOn(standIn.behind, req, res)
      return
    }
    standIn.asked.push(path)
    standIn.inFlight++
    standIn.mostInFlight = Math.max(standIn.mostInFlight, standIn.inFlight)
    // In flight until answered, or until the gateway gives up on it.
    res.once('close', () => standIn.inFlight--)
    if (standIn.hold) held.push(() => answer(res, path))
    else answer(res, path)
  })
  standIn.url = `http://127.0.0.1:${port}`
  return standIn
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade'])

async function passOn(target: string | undefined, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!target) {
    res.writeHead(502, { 'content-length': 0 }).end()
    return
  }
  try {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name))) as Record<string, string>
    const upstream = await request(`${target}${req.url ?? '/'}`, { method: req.method as 'GET', headers, ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body: req }) })
    res.writeHead(upstream.statusCode, Object.fromEntries(Object.entries(upstream.headers).filter(([name]) => !HOP_BY_HOP.has(name))) as Record<string, string>)
    upstream.body.pipe(res)
  } catch {
    res.destroy()
  }
}

/** A gateway whose one renderer is the stand-in, once it is up (a renderer's build shows in /readyz). */
async function gatewayBefore(t: Test, standIn: StandIn, env: Record<string, string>): Promise<string> {
  const system = await startSystem({ RENDERER_URL: standIn.url, RENDERER_PROBE_INTERVAL_MS: '100', ...env })
  t.teardown(() => system.close())
  standIn.behind = system.rendererUrl
  let up = false
  const looked = async (): Promise<void> => {
    const ready = (await (await request(`${system.internalUrl}/readyz`)).body.json()) as { builds?: { renderers: Record<string, number> } }
    up = Object.values(ready.builds?.renderers ?? {}).some((count) => count > 0)
  }
  await looked()
  while (!up) {
    await new Promise((resolve) => setImmediate(resolve))
    await looked()
  }
  return system.url
}

const status = async (url: string): Promise<number> => {
  const response = await request(url)
  await response.body.dump()
  return response.statusCode
}

/** `count` names of the build's shape no build has: eight characters of base32 each. */
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const madeUpNames = (count: number, prefix = 'app'): string[] =>
  Array.from({ length: count }, (_, index) => `/assets/${prefix}-${Array.from({ length: 8 }, (_, digit) => BASE32[Math.floor(index / 32 ** digit) % 32]).join('')}.js`)

t.test('a name that cannot be a file of a build is refused without asking a renderer', async (t) => {
  const standIn = await standInRenderer(t)
  const gateway = await gatewayBefore(t, standIn, {})
  const names = ['/assets/app-NOSUCHFILE.js', '/assets/app-lowercas.js', '/assets/app-ABCDEFG1.js', '/assets/x.js', '/assets/app-ABCDEFGH.js.map', '/assets/styles-ABCDEF1234.css', '/assets/styles-0123456789a.css', '/assets/APP-ABCDEFGH.js']
  for (const name of names) t.equal(await status(`${gateway}${name}`), 404, `${name}: the 404 page`)
  t.same(standIn.asked, [], 'no renderer was asked')
  t.equal(await status(`${gateway}${ITS_FILE}`), 200, 'a file of the build\'s shape is asked for, and served')
  t.same(standIn.asked, [ITS_FILE])
})

t.test('made-up names from one client cost it its work budget: at most that many renderer requests, then 429', async (t) => {
  const standIn = await standInRenderer(t)
  const gateway = await gatewayBefore(t, standIn, { CLIENT_WORK_BUDGET: '10', RATE_LIMIT_WINDOW_MS: '3600000' })
  const answers: number[] = []
  for (const name of madeUpNames(40)) answers.push(await status(`${gateway}${name}`))
  // Each miss is a unit, and its 404 page may be one more.
  t.ok(standIn.asked.length >= 5 && standIn.asked.length <= 10, `${standIn.asked.length} renderer requests for forty names`)
  t.same(answers.slice(0, standIn.asked.length), Array(standIn.asked.length).fill(404), 'those asked: missing, the 404 page')
  t.same(answers.slice(10), Array(30).fill(429), 'the rest refused once the budget is spent')
  const asked = standIn.asked.length
  t.equal(await status(`${gateway}${madeUpNames(1)[0]}`), 404, 'a name already missing is remembered: no unit, no request')
  t.equal(standIn.asked.length, asked)
})

t.test('at most two rounds of questions run at once, for every client together; a real file of another build is still served, and kept', async (t) => {
  const standIn = await standInRenderer(t)
  const gateway = await gatewayBefore(t, standIn, { CLIENT_WORK_BUDGET: '1000' })
  standIn.hold = true
  const answers: number[] = []
  const all = Promise.all(madeUpNames(30, 'chunk').map(async (name) => answers.push(await status(`${gateway}${name}`))))
  // Two asked and held, eight waiting their turn, twenty refused at once (and the eight too, if their wait runs out first).
  await until(() => answers.length >= 20 && standIn.inFlight === 2, () => `${answers.length} answers, ${standIn.inFlight} in flight`)
  t.same(answers, Array(answers.length).fill(503), `${answers.length} refused: 503`)
  standIn.release()
  await all
  t.equal(standIn.mostInFlight, 2, 'never more than two at the renderers')
  t.ok(standIn.asked.length <= 10, `${standIn.asked.length} renderer requests for thirty names`)
  t.ok(answers.slice(20).every((code) => code === 404 || code === 503), 'the waiting ones: asked (404), or refused when their wait ran out (503)')

  const served = await request(`${gateway}${ITS_FILE}`)
  t.equal(served.statusCode, 200)
  t.equal(await served.body.text(), ITS_BYTES)
  t.match(String(served.headers['cache-control']), /immutable/)
  const asked = standIn.asked.length
  t.equal(await status(`${gateway}${ITS_FILE}`), 200)
  t.equal(standIn.asked.length, asked, 'kept: not asked again')
})
