// How many tokenless WebSockets one client can hold open on /cms/live, and
// for how long (issue 31, item 2): directly against a gateway, and through
// deploy/'s front door (adapted to loopback, as scripts/deploy-nginx.mjs runs it);
// and whether visitors still get pages meanwhile. One client opens up to
// ATTEMPTS sockets that never send connection_init, holds them HOLD_MS, and
// counts those still open and the first one the server closed; ten visitors
// ask for pages right after the opening and again near the end of the hold.
// Self-contained: it starts its own gateway, renderer and nginx (built
// services, embedded content), all on loopback, and kills them at the end.
// Run alone with `node --import tsx scripts/hardening/sockets-report.mjs`.
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, WebSocket, request } from 'undici'
import { BEHIND_LB_START, loopbackNginxConf, shippedNginxConf } from '../deploy-nginx.mjs'
import { freePort } from '../free-port.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const NGINX = '/usr/sbin/nginx'
const LIVE_PATH = '/cms/live'
const ATTEMPTS = 5000
const IN_FLIGHT = 100
const OPEN_TIMEOUT_MS = 5000
/** Opening stops once this many attempts have failed: a limit was reached. */
const FAILURES_TO_STOP = 50
const HOLD_MS = 15_000
const VISITORS = 10
const VISIT_TIMEOUT_MS = 5000
const VISITOR_PAGES = ['/', '/actueel', '/over-ons', '/kantoren', '/werken-bij']

const log = (...args) => console.error('[hardening]', ...args)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function start(program, args, env) {
  const child = spawn(program, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const keep = (chunk) => (output = (output + chunk.toString('utf8')).slice(-4000))
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const kill = () => child.kill('SIGKILL')
  process.once('exit', kill)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return {
    child,
    output: () => output,
    async stop(signal = 'SIGKILL') {
      process.off('exit', kill)
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    },
  }
}

async function waitFor(url, service) {
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      const response = await request(url, { headersTimeout: 2000, bodyTimeout: 2000 })
      await response.body.dump()
      if (response.statusCode === 200) return
    } catch {}
    if (service.child.exitCode !== null) break
    await sleep(100)
  }
  throw new Error(`${url} did not come up: ${service.output()}`)
}

/**
 * deploy/'s front door on a loopback port, its upstream the given gateway, its files in `dir`, as
 * scripts/deploy-nginx.mjs adapts it: the plain-HTTP variant (nginx-behind-lb.conf, the same limits and locations as
 * nginx.conf), its trusted load balancer an address no client here has.
 */
function nginxConfig(dir, port, gatewayPort) {
  execFileSync('sh', [BEHIND_LB_START, 'true'], { env: { PATH: process.env.PATH, TRUSTED_LB_ADDRESSES: '192.0.2.1', TRUSTED_LB_CONF: join(dir, 'trusted-lb.conf') } })
  return loopbackNginxConf(shippedNginxConf('behind-lb'), { dir, port, gatewayUrl: `http://127.0.0.1:${gatewayPort}` })
}

/** Opens one socket that never sends connection_init; resolves whether it opened, and keeps its record; `tally` counts those open at once. */
function openSocket(url, sockets, dispatcher, tally) {
  return new Promise((resolve) => {
    const record = { openedAt: undefined, closedAt: undefined, code: undefined }
    const socket = new WebSocket(url, { protocols: ['graphql-transport-ws'], dispatcher })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      socket.close()
      resolve(false)
    }, OPEN_TIMEOUT_MS)
    socket.addEventListener('open', () => {
      clearTimeout(timer)
      // Counted as failed already: closed, not held.
      if (timedOut) return socket.close()
      record.openedAt = performance.now()
      sockets.push({ socket, record })
      tally.open++
      tally.peak = Math.max(tally.peak, tally.open)
      resolve(true)
    })
    socket.addEventListener('error', () => undefined)
    socket.addEventListener('close', (event) => {
      clearTimeout(timer)
      if (record.openedAt !== undefined) tally.open--
      record.closedAt = performance.now()
      record.code = event.code
      resolve(false)
    })
  })
}

/** VISITORS page requests at once; how many got a 200. */
async function visitors(base) {
  const agent = new Agent({ connections: VISITORS, headersTimeout: VISIT_TIMEOUT_MS, bodyTimeout: VISIT_TIMEOUT_MS, connectTimeout: VISIT_TIMEOUT_MS })
  const statuses = await Promise.all(
    Array.from({ length: VISITORS }, async (_, i) => {
      try {
        const response = await request(`${base}${VISITOR_PAGES[i % VISITOR_PAGES.length]}`, { dispatcher: agent })
        await response.body.dump()
        return response.statusCode
      } catch {
        return 'error'
      }
    }),
  )
  await agent.close()
  return { pagesOf: VISITORS, answered200: statuses.filter((status) => status === 200).length, statuses: statuses.reduce((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {}) }
}

/** One client's sockets against `base` (http://host:port): opened, held, counted; visitors' pages meanwhile. */
async function socketRound(base) {
  const url = `${base.replace(/^http/, 'ws')}${LIVE_PATH}`
  const dispatcher = new Agent({ connectTimeout: OPEN_TIMEOUT_MS })
  const sockets = []
  const tally = { open: 0, peak: 0 }
  let attempts = 0
  let failures = 0
  const began = performance.now()
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (attempts < ATTEMPTS && failures < FAILURES_TO_STOP) {
        attempts++
        if (!(await openSocket(url, sockets, dispatcher, tally))) failures++
      }
    }),
  )
  const openingSeconds = +((performance.now() - began) / 1000).toFixed(1)
  const heldFrom = performance.now()
  const openAfterOpening = sockets.filter(({ record }) => record.closedAt === undefined).length
  const pages = await visitors(base)
  await sleep(Math.max(0, heldFrom + HOLD_MS - VISIT_TIMEOUT_MS - performance.now()))
  const pagesLater = await visitors(base)
  await sleep(Math.max(0, heldFrom + HOLD_MS - performance.now()))
  const openAtEnd = sockets.filter(({ record }) => record.closedAt === undefined).length
  const closed = sockets.filter(({ record }) => record.closedAt !== undefined)
  const lifetimes = closed.map(({ record }) => record.closedAt - record.openedAt)
  const closeCodes = closed.reduce((counts, { record }) => ({ ...counts, [record.code]: (counts[record.code] ?? 0) + 1 }), {})
  // Ours closed now; the server's side given a moment to see it before the next round.
  for (const { socket, record } of sockets) if (record.closedAt === undefined) socket.close()
  for (let i = 0; i < 50 && sockets.some(({ record }) => record.closedAt === undefined); i++) await sleep(100)
  await dispatcher.destroy()
  return {
    attempts,
    opened: sockets.length,
    mostOpenAtOnce: tally.peak,
    openingSeconds,
    openAfterOpening,
    holdSeconds: HOLD_MS / 1000,
    openAtEnd,
    firstServerCloseAfterMs: lifetimes.length ? Math.round(Math.min(...lifetimes)) : null,
    serverCloseCodes: closeCodes,
    visitorsWhileOpen: pages,
    visitorsAtHoldEnd: pagesLater,
  }
}

export async function measureSockets() {
  const [port, rendererPort, internalPort, nginxPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()])
  const secret = randomBytes(24).toString('base64url')
  const common = { LOG_LEVEL: 'warn', RENDER_SECRET: secret }
  const renderer = start(process.execPath, [join(ROOT, 'dist', 'renderer.js')], { ...common, RENDERER_PORT: String(rendererPort), GATEWAY_URL: `http://127.0.0.1:${port}` })
  const gateway = start(process.execPath, [join(ROOT, 'dist', 'gateway.js')], {
    ...common,
    PORT: String(port),
    HOST: '127.0.0.1',
    INTERNAL_PORT: String(internalPort),
    RENDERER_URL: `http://127.0.0.1:${rendererPort}`,
    TRUST_PROXY: '1',
  })
  const dir = mkdtempSync(join(tmpdir(), 'hardening-lb-'))
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig(dir, nginxPort, port))
  const nginx = start(NGINX, ['-e', join(dir, 'error.log'), '-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], {})
  try {
    await waitFor(`http://127.0.0.1:${internalPort}/readyz`, gateway)
    await waitFor(`http://127.0.0.1:${nginxPort}/nginx-health`, nginx)
    const site = `http://127.0.0.1:${port}`
    const lb = `http://127.0.0.1:${nginxPort}`
    for (const page of VISITOR_PAGES) await (await request(`${site}${page}`)).body.dump()
    const direct = await socketRound(site)
    log('sockets, direct:', direct)
    const throughNginx = await socketRound(lb)
    log('sockets, through nginx:', throughNginx)
    const nginxErrors = readFileSync(join(dir, 'error.log'), 'utf8')
    return {
      direct,
      throughNginx: { ...throughNginx, workerConnectionsExhausted: nginxErrors.includes('worker_connections are not enough') },
    }
  } finally {
    await nginx.stop('SIGKILL')
    await Promise.all([gateway.stop(), renderer.stop()])
    rmSync(dir, { recursive: true, force: true })
  }
}

const holding = (round) =>
  `${round.openAtEnd} of ${round.attempts} open after ${round.holdSeconds} s (opened ${round.opened}, at most ${round.mostOpenAtOnce} at once; first closed by the server ${round.firstServerCloseAfterMs === null ? 'never' : `after ${round.firstServerCloseAfterMs} ms`}); visitors ${round.visitorsWhileOpen.answered200}/${round.visitorsWhileOpen.pagesOf} pages, ${round.visitorsAtHoldEnd.answered200}/${round.visitorsAtHoldEnd.pagesOf} ${(HOLD_MS - VISIT_TIMEOUT_MS) / 1000} s later`

export const socketsRows = (result) => [
  ['tokenless sockets on /cms/live, one client, direct', holding(result.direct)],
  ['tokenless sockets on /cms/live, one client, through nginx', `${holding(result.throughNginx)}${result.throughNginx.workerConnectionsExhausted ? '; nginx: worker_connections are not enough' : ''}`],
]

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Stopped from outside: exiting kills what it started (each start() kills its process on exit).
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143))
  const result = await measureSockets()
  console.log(JSON.stringify(result, null, 2))
  process.exit(0)
}
