// The load of scripts/test-containers.mjs: visitors asking for pages, and each page's assets, through the front door
// while something changes, with what failed and how fast it went.
import { Pool } from 'undici'

/** The bundle files a page names (`/assets/app-….js`, styles, chunks): a visitor's browser fetches each. */
const ASSET_NAMES = /(?:src|href)="(\/assets\/[^"?#]+\.(?:js|css))"/g
const assetsOf = (html) => [...new Set([...html.matchAll(ASSET_NAMES)].map((match) => match[1]))]

/** The latencies' p50, p99 and slowest, and the requests a second over the run and in its slowest whole second. */
function speedOf(durations, perSecond, tally, seconds) {
  durations.sort((a, b) => a - b)
  const percentile = (p) => Math.round(durations[Math.min(durations.length - 1, Math.floor(durations.length * p))] ?? 0)
  const latency = { p50: percentile(0.5), p99: percentile(0.99), max: Math.round(tally.slowest) }
  // Whole seconds only: the last one is cut short by the end of the run.
  const whole = [...Array(Math.max(0, Math.floor(seconds))).keys()].map((second) => perSecond.get(second) ?? 0)
  const throughput = { perSecond: Math.round(tally.sent / seconds), lowestSecond: whole.length > 0 ? Math.min(...whole) : 0, secondsBelowHalf: whole.filter((n) => n < tally.sent / seconds / 2).length }
  return { latency, throughput }
}

/**
 * Runs `change` while requests go on, as visitors would: every page answered 200 has the assets it names fetched
 * too (a 404 there is a page without its JavaScript). They stop once it is done and at least `requests` were sent.
 * Counted: failed pages (not 200, or a network error), asset 404s and other asset failures, the slowest request,
 * the requests a second over the whole run and in its slowest whole second (a throughput cliff).
 */
export async function underLoad({ origin, connect, concurrency, log }, label, paths, change, requests) {
  const pool = new Pool(origin, { connections: concurrency * 2, pipelining: 1, connect })
  const tally = { sent: 0, ok: 0, failed: 0, statuses: {}, errors: {}, slowest: 0, cache: {}, assets: 0, asset404: 0, assetFailed: 0 }
  const durations = []
  const perSecond = new Map()
  let firstFailure
  let lastFailure = 0
  const failedPages = []
  let changing = true
  const started = performance.now()
  const get = async (path) => {
    const response = await pool.request({ path, method: 'GET', headersTimeout: 30_000, bodyTimeout: 30_000 })
    return { status: response.statusCode, headers: response.headers, body: await response.body.text() }
  }
  const worker = async () => {
    while (changing || tally.sent < requests) {
      if (tally.sent >= requests * 40) break // bounded, whatever the change takes
      const path = paths[tally.sent % paths.length] ?? '/'
      tally.sent++
      const begun = performance.now()
      const failedBefore = tally.failed
      try {
        const page = await get(path)
        const cache = String(page.headers['x-cache'] ?? 'none')
        tally.cache[cache] = (tally.cache[cache] ?? 0) + 1
        if (page.status === 200) {
          tally.ok++
          for (const asset of assetsOf(page.body)) {
            tally.assets++
            const answer = await get(asset).catch((error) => ({ status: error.code ?? 'error' }))
            if (answer.status === 404) tally.asset404++
            else if (answer.status !== 200) tally.assetFailed++
          }
        } else {
          tally.failed++
          tally.statuses[page.status] = (tally.statuses[page.status] ?? 0) + 1
          // The first few failed pages with what says where they came from: the request id finds them in `docker service logs`.
          if (failedPages.length < 10) {
            failedPages.push({ at: Math.round(performance.now() - started), path, status: page.status, cache: page.headers['x-cache'], requestId: page.headers['x-request-id'], body: page.body.replace(/\s+/g, ' ').slice(0, 160) })
          }
        }
      } catch (error) {
        tally.failed++
        tally.errors[error.code ?? error.message] = (tally.errors[error.code ?? error.message] ?? 0) + 1
      }
      const done = performance.now()
      // A refused connection comes back in a millisecond and the loop asks again: how long failures went on says more than their count.
      if (tally.failed > failedBefore) {
        firstFailure ??= done - started
        lastFailure = done - started
      }
      durations.push(done - begun)
      tally.slowest = Math.max(tally.slowest, done - begun)
      const second = Math.floor((done - started) / 1000)
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1)
    }
  }
  const workers = Array.from({ length: concurrency }, worker)
  try {
    await change()
  } finally {
    changing = false
  }
  log(`${label}: the change took ${((performance.now() - started) / 1000).toFixed(1)} s`)
  await Promise.all(workers)
  const seconds = (performance.now() - started) / 1000
  await pool.close()
  const { latency, throughput } = speedOf(durations, perSecond, tally, seconds)
  const failingMs = firstFailure === undefined ? 0 : Math.round(lastFailure - firstFailure)
  log(
    `${label}: ${tally.failed} failed of ${tally.sent}${failingMs > 0 ? ` over ${(failingMs / 1000).toFixed(1)} s` : ''} (statuses ${JSON.stringify(tally.statuses)}, errors ${JSON.stringify(tally.errors)}, X-Cache ${JSON.stringify(tally.cache)}); ` +
      `assets ${tally.asset404} 404 and ${tally.assetFailed} other failures of ${tally.assets}; p50 ${latency.p50} ms, p99 ${latency.p99} ms, slowest ${latency.max} ms; ` +
      `${throughput.perSecond} requests/s, lowest second ${throughput.lowestSecond}, ${throughput.secondsBelowHalf} s below half`,
  )
  for (const failure of failedPages) log(`${label}: failed page ${JSON.stringify(failure)}`)
  return { label, ...tally, failingMs, latency, throughput }
}
