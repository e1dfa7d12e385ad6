// A visitor's p99 on a cached page while one client floods 404s (issue 31,
// item 1), as a ratio to the same visitor alone, in one run on one site. The
// visitor asks for one stored page over one connection, at most one request
// every 10 ms (a steady visitor, not a second load); the flooder asks for
// unique unknown paths over a few connections, as fast as they answer. Each
// has its own client address (TRUST_PROXY=1, X-Forwarded-For), as behind nginx.
import { load, log, randomSlug, startSite, steadyVisitor } from './report-kit.mjs'

const VISIT_MS = 8000
const VISIT_EVERY_MS = 10
const FLOOD_CONNECTIONS = 8
const FLOOD_MAX = 50_000
const PAGE = '/'


/** The visitor's requests for VISIT_MS: its latencies' p50, p99 and maximum. */
const visit = (site) => steadyVisitor(site.url, PAGE, VISIT_MS, { everyMs: VISIT_EVERY_MS })

export async function measureFloodLatency() {
  // The visitor's page stays fresh for the whole run: every request of it is a cache hit.
  const site = await startSite({ gatewayEnv: { TRUST_PROXY: '1', PAGE_CACHE_TTL_MS: '600000' } })
  try {
    await load(3, 1, () => ({ url: `${site.url}${PAGE}` }))
    const alone = await visit(site)
    let visiting = true
    const flooding = load(FLOOD_MAX, FLOOD_CONNECTIONS, () => ({ url: `${site.url}/bestaat-niet-${randomSlug()}`, headers: { 'x-forwarded-for': '203.0.113.50' } }), {
      until: () => !visiting,
      maxMs: VISIT_MS * 2,
    })
    const flooded = await visit(site).finally(() => (visiting = false))
    const flood = await flooding
    const result = {
      page: PAGE,
      alone,
      duringFlood: flooded,
      flood: { connections: FLOOD_CONNECTIONS, requests: flood.sent, seconds: flood.seconds, statuses: flood.statuses },
      p99Ratio: alone.p99Ms ? +(flooded.p99Ms / alone.p99Ms).toFixed(2) : null,
    }
    log('flood latency:', result)
    return result
  } finally {
    await site.close()
  }
}

export const floodLatencyRows = (result) => [
  [
    `visitor p99 on a cached page, flood of 404s / alone`,
    `${result.p99Ratio}× (${result.duringFlood.p99Ms} ms / ${result.alone.p99Ms} ms; flood ${result.flood.requests} requests, ${Object.entries(result.flood.statuses).map(([status, n]) => `${n}×${status}`).join(' ')})`,
  ],
]
