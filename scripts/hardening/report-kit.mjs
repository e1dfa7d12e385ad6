// What the measurements of `npm run hardening` share: the built services started
// as processes on loopback, bounded request loops, a counting proxy and the
// renderer's render count. Every process started here is killed when the
// report's process exits, whatever happens to it.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'undici'
import { freePort } from '../free-port.mjs'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const log = (...args) => console.error('[hardening]', ...args)
export { freePort }

const running = new Set()
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})
// Stopped from outside (Ctrl-C, a test's timeout): exiting runs the handler above, so no service outlives the report.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143))

/** A process of the given program with exactly the given environment (and PATH); its last output is kept for errors. */
export function startProcess(program, args, env) {
  const child = spawn(program, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(child)
  let output = ''
  const keep = (chunk) => (output = (output + chunk.toString('utf8')).slice(-4000))
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const exited = new Promise((resolve) => child.once('exit', () => resolve()))
  exited.then(() => running.delete(child))
  return {
    child,
    output: () => output,
    /** Sends the signal (SIGKILL by default) and waits for the exit. */
    async stop(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) {
        // A stopped process (SIGSTOP) is woken first, so that a SIGTERM is acted on.
        child.kill('SIGCONT')
        child.kill(signal)
      }
      await exited
    },
  }
}

/** A built service (dist/gateway.js, dist/renderer.js). */
export const startService = (file, env) => startProcess(process.execPath, [join(ROOT, 'dist', file)], env)

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until the URL answers (any status when `anyStatus`, else 200), at most 60 s. */
export async function waitFor(url, { anyStatus = false, service } = {}) {
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      const response = await request(url, { headersTimeout: 2000, bodyTimeout: 2000 })
      await response.body.dump()
      if (anyStatus || response.statusCode === 200) return
    } catch {}
    if (service && service.child.exitCode !== null) break
    await sleep(100)
  }
  throw new Error(`${url} did not come up${service ? `: ${service.output()}` : ''}`)
}

/**
 * A gateway and a renderer from dist/, on loopback, with the embedded content
 * unless `gatewayEnv` names a CRAFT_API_URL. Extra environment for each; both
 * share a render secret. `rendererVia(rendererUrl)` names the address the
 * gateway is given for the renderer instead (a proxy in front of it).
 * Resolves when the gateway is ready.
 */
export async function startSite({ gatewayEnv = {}, rendererEnv = {}, rendererVia = (url) => url, gatewayNodeArgs = [] } = {}) {
  const [port, rendererPort, internalPort] = await Promise.all([freePort(), freePort(), freePort()])
  const common = { LOG_LEVEL: 'warn', RENDER_SECRET: randomBytes(24).toString('base64url') }
  const renderer = startService('renderer.js', { ...common, RENDERER_PORT: String(rendererPort), GATEWAY_URL: `http://127.0.0.1:${port}`, ...rendererEnv })
  const gateway = startProcess(process.execPath, [...gatewayNodeArgs, join(ROOT, 'dist', 'gateway.js')], {
    ...common,
    PORT: String(port),
    HOST: '127.0.0.1',
    INTERNAL_PORT: String(internalPort),
    RENDERER_URL: rendererVia(`http://127.0.0.1:${rendererPort}`),
    ...gatewayEnv,
  })
  const site = {
    url: `http://127.0.0.1:${port}`,
    internalUrl: `http://127.0.0.1:${internalPort}`,
    rendererUrl: `http://127.0.0.1:${rendererPort}`,
    gateway,
    renderer,
    async close() {
      await Promise.all([gateway.stop(), renderer.stop()])
    },
  }
  try {
    await waitFor(`${site.internalUrl}/readyz`, { service: gateway })
  } catch (error) {
    await site.close()
    throw new Error(`${error.message}\nrenderer: ${renderer.output()}`)
  }
  return site
}

/** Renders done so far by a renderer, from its own /metrics (every status). */
export async function rendersOf(rendererUrl) {
  const response = await request(`${rendererUrl}/metrics`)
  const text = await response.body.text()
  let total = 0
  for (const match of text.matchAll(/^render_duration_seconds_count\{[^}]*\} (\d+)/gm)) total += Number(match[1])
  return total
}

/**
 * An HTTP proxy on loopback in front of `target` (an origin) that counts the
 * requests it passes on, but for GETs of asset files. Put in front of a CMS it
 * counts CMS calls where the CMS sees them.
 */
export async function startCountingProxy(target) {
  const agent = new Agent({ connections: 64 })
  let calls = 0
  const server = createServer(async (req, res) => {
    if (!(req.method === 'GET' && req.url.startsWith('/cms-assets/'))) calls++
    try {
      const chunks = []
      for await (const chunk of req) chunks.push(chunk)
      const headers = { ...req.headers }
      delete headers.host
      delete headers.connection
      const answer = await request(`${target}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined, dispatcher: agent })
      const body = Buffer.from(await answer.body.arrayBuffer())
      const passed = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name)))
      res.writeHead(answer.statusCode, passed)
      res.end(body)
    } catch {
      res.destroy()
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    calls: () => calls,
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await agent.close()
    },
  }
}

/**
 * Runs at most `count` requests made by `make(i)`, `concurrency` at a time on
 * as many connections, for at most `maxMs` (or until `until()` says stop).
 * Returns how many were sent, the statuses ('error' for a failed request), the
 * time taken and, with `timed`, each request's start (ms since the loop began)
 * and duration; `onResponse(response, i)` sees each answer's headers.
 */
export async function load(count, concurrency, make, { maxMs = 60_000, until = () => false, timed = false, timeoutMs = 15_000, onResponse } = {}) {
  const agent = new Agent({ connections: concurrency, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
  const statuses = {}
  const samples = []
  const began = performance.now()
  let next = 0
  const count1 = (key) => (statuses[key] = (statuses[key] ?? 0) + 1)
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count && performance.now() - began < maxMs && !until()) {
        const i = next++
        const { url, ...options } = make(i)
        const start = performance.now()
        try {
          const response = await request(url, { ...options, dispatcher: agent })
          await response.body.dump()
          count1(response.statusCode)
          onResponse?.(response, i)
        } catch {
          count1('error')
        }
        if (timed) samples.push({ at: start - began, ms: performance.now() - start })
      }
    }),
  )
  await agent.close()
  return { sent: next, statuses, seconds: +((performance.now() - began) / 1000).toFixed(1), ...(timed ? { samples } : {}) }
}

/**
 * A steady visitor of one page for `ms`: one connection, at most one request
 * every `everyMs`, from `address` (X-Forwarded-For); its latencies' p50, p99
 * and maximum, and its answers by status (and X-Cache, with `withCache`).
 */
export async function steadyVisitor(siteUrl, page, ms, { everyMs = 10, address = '198.51.100.5', withCache = false } = {}) {
  const agent = new Agent({ connections: 1, headersTimeout: 15_000, bodyTimeout: 15_000 })
  const statuses = {}
  const latencies = []
  const began = performance.now()
  while (performance.now() - began < ms) {
    const start = performance.now()
    let status = 'error'
    try {
      const response = await request(`${siteUrl}${page}`, { headers: { 'x-forwarded-for': address }, dispatcher: agent })
      await response.body.dump()
      status = withCache ? `${response.statusCode} ${response.headers['x-cache']}` : response.statusCode
    } catch {}
    latencies.push(performance.now() - start)
    statuses[status] = (statuses[status] ?? 0) + 1
    await sleep(Math.max(0, start + everyMs - performance.now()))
  }
  await agent.close()
  return { requests: latencies.length, statuses, p50Ms: tenths(quantile(latencies, 0.5)), p99Ms: tenths(quantile(latencies, 0.99)), maxMs: tenths(Math.max(...latencies)) }
}

/** The value at quantile `q` (0..1) of the numbers, or null when there are none. */
export function quantile(values, q) {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? null
}

/** Milliseconds to a tenth, null kept. */
export const tenths = (value) => (value === null || value === undefined ? null : +value.toFixed(1))

/** The paths the site's /sitemap.xml lists. */
export async function sitemapPaths(siteUrl) {
  const response = await request(`${siteUrl}/sitemap.xml`)
  const xml = await response.body.text()
  return [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => {
    const url = new URL(match[1].replaceAll('&amp;', '&'))
    return `${url.pathname}${url.search}`
  })
}

export const randomSlug = () => randomBytes(6).toString('hex')
