// How many tokenless WebSockets one client can hold open on /cms/live, and
// for how long, and whether visitors still get pages meanwhile: directly
// against a gateway, and through deploy/nginx.conf (issue 31, item 2).
//
// The client is the worst case for the server: it upgrades, then sends
// nothing (no connection_init), answers no ping and no close frame, and
// keeps reading so that nothing stalls on its side. A socket counts as held
// until its TCP connection is closed by the other end.
//
//   npm run build && node scripts/hardening/live-sockets.mjs
//
// starts the built renderer and gateway (embedded content) and nginx, and
// prints JSON. `measureLiveSockets` is for other scripts (npm run hardening).
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { get } from 'node:http'
import { connect } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startDeployNginx } from '../deploy-nginx.mjs'
import { freePort } from '../free-port.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const LIVE_PATH = '/cms/live'
const OPEN_TIMEOUT_MS = 5000
const PAGE_TIMEOUT_MS = 5000

/**
 * Opens one silent WebSocket. Resolves when the server has answered (or
 * not): `status` is the HTTP status, 'reset' (closed before answering) or
 * 'timeout'; an upgraded socket also has `closed`, which resolves to how long
 * it was held (ms) when the server ends it.
 */
function openSilentSocket(base) {
  const { hostname, port } = new URL(base)
  return new Promise((resolveOpen) => {
    const socket = connect({ host: hostname, port: Number(port) })
    const startedAt = performance.now()
    let head = ''
    let answered = false
    let resolveClosed
    const closed = new Promise((r) => (resolveClosed = r))
    const answer = (status) => {
      if (answered) return
      answered = true
      clearTimeout(timer)
      if (status === 101) resolveOpen({ status, socket, closed })
      else {
        socket.destroy()
        resolveOpen({ status })
      }
    }
    const timer = setTimeout(() => answer('timeout'), OPEN_TIMEOUT_MS)
    socket.setNoDelay(true)
    socket.on('connect', () =>
      socket.write(
        `GET ${LIVE_PATH} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n`,
      ),
    )
    socket.on('data', (chunk) => {
      if (answered) return
      head += chunk.toString('latin1')
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]
      if (status && head.includes('\r\n\r\n')) answer(Number(status))
    })
    socket.on('error', () => undefined)
    socket.on('close', () => {
      answer('reset')
      resolveClosed(performance.now() - startedAt)
    })
  })
}

/** One visitor's page: a new connection, at most PAGE_TIMEOUT_MS. Resolves to the status, or 'error'/'timeout'. */
function visitorPage(base) {
  return new Promise((resolvePage) => {
    const request = get(`${base}/`, { agent: false, timeout: PAGE_TIMEOUT_MS }, (response) => {
      response.resume()
      response.on('end', () => resolvePage(response.statusCode))
      response.on('error', () => resolvePage('error'))
    })
    request.on('timeout', () => {
      request.destroy()
      resolvePage('timeout')
    })
    request.on('error', () => resolvePage('error'))
  })
}

const tally = (values) => values.reduce((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {})
const percentile = (sorted, p) => (sorted.length === 0 ? null : Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]))
const rssMiB = (pid) => (pid ? Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024) : undefined)

/**
 * One client (this process's loopback address) opens up to `sockets` silent
 * WebSockets on `base`, `batch` at a time, stopping after a batch of which
 * none was upgraded; then `visitors` page requests on new connections; then
 * watches for `holdMs` how long the upgraded sockets stay open.
 */
export async function measureLiveSockets({ base, sockets = 4500, batch = 150, visitors = 10, holdMs = 20_000, gatewayPid } = {}) {
  const rssBefore = rssMiB(gatewayPid)
  const opened = []
  const statuses = []
  const startedAt = performance.now()
  while (statuses.length < sockets) {
    const results = await Promise.all(Array.from({ length: Math.min(batch, sockets - statuses.length) }, () => openSilentSocket(base)))
    for (const result of results) {
      statuses.push(result.status)
      if (result.status === 101) opened.push(result)
    }
    if (!results.some((result) => result.status === 101)) break
  }
  const openingMs = Math.round(performance.now() - startedAt)
  let stillOpen = opened.length
  const lifetimes = []
  for (const socket of opened) socket.closed.then((ms) => { stillOpen--; lifetimes.push(ms) })
  const openNow = stillOpen
  const rssHolding = rssMiB(gatewayPid)
  const pages = tally(await Promise.all(Array.from({ length: visitors }, () => visitorPage(base))))
  const watchUntil = performance.now() + holdMs
  while (stillOpen > 0 && performance.now() < watchUntil) await new Promise((r) => setTimeout(r, 100))
  const held = lifetimes.sort((a, b) => a - b)
  const result = {
    attempted: statuses.length,
    answers: tally(statuses),
    upgraded: opened.length,
    openWhenVisitorsAsked: openNow,
    openingMs,
    visitorPages: pages,
    visitorPagesOk: pages[200] ?? 0,
    visitorsAsked: visitors,
    watchedMs: holdMs,
    closedByServer: held.length,
    stillOpenAfterWatch: stillOpen,
    heldMs: { min: percentile(held, 0), median: percentile(held, 50), max: percentile(held, 100) },
    ...(gatewayPid ? { gatewayRssMiB: { before: rssBefore, holding: rssHolding } } : {}),
  }
  for (const { socket } of opened) socket.destroy()
  await Promise.all(opened.map((socket) => socket.closed))
  return result
}

async function waitForPage(url) {
  for (let attempt = 0; attempt < 300; attempt++) {
    if ((await visitorPage(url.replace(/\/$/, ''))) === 200) return
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${url} gave no page`)
}

async function main() {
  if (!existsSync(join(root, 'dist', 'gateway.js'))) throw new Error('run `npm run build` first')
  const children = []
  process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')))
  const start = (file, env) => {
    const child = spawn(process.execPath, [join(root, 'dist', file)], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'ignore', 'inherit'] })
    children.push(child)
    return child
  }
  const [port, rendererPort, internalPort] = await Promise.all([freePort(), freePort(), freePort()])
  const common = { LOG_LEVEL: 'warn', RENDER_SECRET: randomBytes(24).toString('base64url') }
  start('renderer.js', { ...common, RENDERER_PORT: String(rendererPort), GATEWAY_URL: `http://127.0.0.1:${port}` })
  // As in docker-compose.yml: behind one nginx, whose X-Forwarded-For names the client.
  const gateway = start('gateway.js', { ...common, PORT: String(port), HOST: '127.0.0.1', INTERNAL_PORT: String(internalPort), RENDERER_URL: `http://127.0.0.1:${rendererPort}`, TRUST_PROXY: '1' })
  const site = `http://127.0.0.1:${port}`
  await waitForPage(site)
  const nginx = await startDeployNginx({ gatewayUrl: site })
  try {
    const commit = await new Promise((r) => {
      const git = spawn('git', ['rev-parse', '--short', 'HEAD'], { cwd: root })
      let out = ''
      git.stdout.on('data', (chunk) => (out += chunk))
      git.on('exit', () => r(out.trim()))
    })
    const direct = await measureLiveSockets({ base: site, gatewayPid: gateway.pid })
    await waitForPage(site)
    const throughNginx = await measureLiveSockets({ base: nginx.url, gatewayPid: gateway.pid })
    console.log(JSON.stringify({ commit, direct, throughNginx }, null, 2))
  } finally {
    await nginx.close()
  }
  process.exit(0)
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main()
