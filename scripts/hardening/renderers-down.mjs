// Stored pages with every renderer stopped, under load (issue 33, item 5): every
// page of /sitemap.xml is stored and past its TTL, then the renderer's address
// stops answering: a TCP proxy in front of it takes every connection and never
// writes (a renderer whose host is gone costs a connect timeout; loopback would
// refuse a closed port at once, which is the fast case) and the renderer is
// killed. Once the gateway has marked it down (its log says so), the sitemap's
// pages are asked for by 16 connections: their latencies, statuses, X-Cache,
// and how many renders still reached the dead address. The control: the same
// load earlier in the run, while the stored pages were fresh (HIT), so that a
// loaded machine's latencies can be read against what a stored page costs.
import { connect, createServer } from 'node:net'
import { load, log, quantile, sitemapPaths, sleep, startSite, tenths } from './report-kit.mjs'

/** Long enough for the control load to find the pages fresh. */
const PAGE_TTL_MS = 20_000
const CONTROL_MAX_MS = 15_000
const REQUESTS = 2000
const CONCURRENCY = 16
const MAX_MS = 60_000
/** Each request from an address of its own (TRUST_PROXY=1): a per-client budget must not answer for the renderers. */
const client = (i) => `198.18.${(i >> 8) & 255}.${i & 255}`

/** A proxy that forwards to `target` until `hang()`, then takes connections and never answers; it counts the requests it read meanwhile. */
async function hangingProxy() {
  const state = { target: undefined, hung: false, renders: 0, probes: 0 }
  const open = new Set()
  const server = createServer((socket) => {
    open.add(socket)
    socket.once('close', () => open.delete(socket))
    socket.on('error', () => undefined)
    if (state.hung || !state.target) {
      socket.on('data', (chunk) => {
        for (const [, path] of chunk.toString('latin1').matchAll(/^(?:GET|POST|HEAD) (\S+) HTTP\/1\.1\r\n/gm)) path === '/healthz' ? state.probes++ : state.renders++
      })
      return
    }
    const target = new URL(state.target)
    const upstream = connect(Number(target.port), target.hostname)
    open.add(upstream)
    upstream.once('close', () => open.delete(upstream))
    upstream.on('error', () => socket.destroy())
    socket.pipe(upstream).pipe(socket)
    socket.once('close', () => upstream.destroy())
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    state,
    url: `http://127.0.0.1:${server.address().port}`,
    hang() {
      state.hung = true
      for (const socket of open) socket.destroy()
    },
    close() {
      for (const socket of open) socket.destroy()
      return new Promise((resolve) => server.close(resolve))
    },
  }
}

/** REQUESTS requests round the pages, CONCURRENCY at a time, for at most `maxMs`: their latencies, statuses and X-Cache. */
async function pageLoad(siteUrl, paths, maxMs, xCache) {
  const countXCache = (response) => (xCache[response.headers['x-cache'] ?? 'none'] = (xCache[response.headers['x-cache'] ?? 'none'] ?? 0) + 1)
  const run = await load(REQUESTS, CONCURRENCY, (i) => ({ url: `${siteUrl}${paths[i % paths.length]}`, headers: { 'x-forwarded-for': client(i) } }), {
    maxMs,
    timeoutMs: 60_000,
    timed: true,
    onResponse: countXCache,
  })
  const latencies = run.samples.map((sample) => sample.ms)
  return {
    requests: run.sent,
    seconds: run.seconds,
    statuses: run.statuses,
    p50Ms: tenths(quantile(latencies, 0.5)),
    p99Ms: tenths(quantile(latencies, 0.99)),
    slowestMs: tenths(latencies.length ? Math.max(...latencies) : null),
    over1s: latencies.filter((ms) => ms > 1000).length,
  }
}

export async function measureRenderersDown() {
  const proxy = await hangingProxy()
  const site = await startSite({
    gatewayEnv: { TRUST_PROXY: '1', PAGE_CACHE_TTL_MS: String(PAGE_TTL_MS) },
    rendererVia: (url) => {
      proxy.state.target = url
      return proxy.url
    },
  })
  try {
    const paths = await sitemapPaths(site.url)
    const warm = await load(paths.length, 4, (i) => ({ url: `${site.url}${paths[i]}`, headers: { 'x-forwarded-for': '198.51.100.33' } }))
    // Every page stored by now: past this plus the TTL, all are stale.
    const warmedAt = performance.now()
    const controlXCache = {}
    const control = await pageLoad(site.url, paths, CONTROL_MAX_MS, controlXCache)
    await sleep(Math.max(0, warmedAt + PAGE_TTL_MS + 500 - performance.now()))
    proxy.hang()
    await site.renderer.stop('SIGKILL')
    // Measured once the gateway knows (its probe timed out): the state "every renderer stopped", not the moment it happens.
    const hungAt = performance.now()
    while (!site.gateway.output().includes('renderer skipped') && performance.now() - hungAt < 30_000) await sleep(50)
    const markedDownMs = Math.round(performance.now() - hungAt)
    if (!site.gateway.output().includes('renderer skipped')) throw new Error(`the gateway did not mark the renderer down: ${site.gateway.output()}`)
    const rendersBefore = proxy.state.renders
    const xCache = {}
    const down = await pageLoad(site.url, paths, MAX_MS, xCache)
    const result = {
      sitemapPages: paths.length,
      warmStatuses: warm.statuses,
      control: { ...control, xCache: controlXCache },
      markedDownMs,
      ...down,
      xCache,
      rendersSentToTheDeadAddress: proxy.state.renders - rendersBefore,
      probesOfTheDeadAddress: proxy.state.probes,
    }
    log('renderers down:', result)
    return result
  } finally {
    await site.close()
    await proxy.close()
  }
}

export const renderersDownRows = (result) => [
  [
    `stored pages, every renderer hung and marked down: p99 under ${CONCURRENCY} connections`,
    `${result.p99Ms} ms (p50 ${result.p50Ms} ms, slowest ${result.slowestMs} ms, ${result.over1s} over 1 s; ${result.requests} requests in ${result.seconds} s: ${counts(result.statuses)}, X-Cache ${counts(result.xCache)}; renders sent to the dead address ${result.rendersSentToTheDeadAddress})`,
  ],
  [
    `the same pages fresh (HIT), renderer up, same run: p99`,
    `${result.control.p99Ms} ms (p50 ${result.control.p50Ms} ms, slowest ${result.control.slowestMs} ms; ${result.control.requests} requests in ${result.control.seconds} s: ${counts(result.control.statuses)}, X-Cache ${counts(result.control.xCache)})`,
  ],
]

const counts = (tally) => Object.entries(tally).map(([key, n]) => `${n}×${key}`).join(' ')
