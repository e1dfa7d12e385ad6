// Hits during a distributed miss flood (issue 41, finding 5): a visitor's p99
// on a cached page while 200 addresses ask for unknown-but-plausible pages
// (a random slug under each section, a random page number of an overview),
// as a ratio to the same visitor alone, in one run on one site; and the
// gateway's event-loop lag p99 in each phase, from its own /metrics (prom-
// client resets the lag histogram on every scrape, so a scrape before a
// phase starts it afresh). The visitor asks for one stored page over one
// connection, at most one request every 10 ms; the flood uses 16 connections
// as fast as they answer, each request from one of FLOOD_ADDRESSES
// (TRUST_PROXY=1, X-Forwarded-For), as behind nginx. `profileDir` writes the
// gateway's CPU profile of the whole run there (--cpu-prof).
import { request } from 'undici'
import { load, log, randomSlug, startSite, steadyVisitor, tenths } from './report-kit.mjs'

const VISIT_EVERY_MS = 10
const FLOOD_CONNECTIONS = 16
const FLOOD_ADDRESSES = 200
const FLOOD_MAX = 200_000
const PAGE = '/'
/** Unknown-but-plausible addresses: what a crawler of guessed links or a flood that avoids the cache sends. */
const PLAUSIBLE = [
  () => `/actueel/${randomSlug()}`,
  () => `/werken-bij/${randomSlug()}`,
  () => `/onze-dienstverlening/${randomSlug()}`,
  () => `/${randomSlug()}`,
  () => `/actueel?pagina=${2 + Math.floor(Math.random() * 500)}`,
]

/** The visitor's requests for `ms`: its latencies' p50, p99 and maximum, and whether each was a hit. */
const visit = (site, ms) => steadyVisitor(site.url, PAGE, ms, { everyMs: VISIT_EVERY_MS, withCache: true })

/** The gateway's event-loop lag p99 since the last scrape, in ms. */
async function loopLagP99(site) {
  const response = await request(`${site.internalUrl}/metrics`)
  const text = await response.body.text()
  const value = /^nodejs_eventloop_lag_p99_seconds(?:\{[^}]*\})? ([\d.e+-]+)$/m.exec(text)?.[1]
  return value === undefined ? null : tenths(Number(value) * 1000)
}

export async function measureMissFlood({ seconds = 8, profileDir } = {}) {
  const ms = seconds * 1000
  // The visitor's page stays fresh for the whole run: every request of it is a cache hit.
  const site = await startSite({
    gatewayEnv: { TRUST_PROXY: '1', PAGE_CACHE_TTL_MS: '600000' },
    gatewayNodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  })
  try {
    await load(3, 1, () => ({ url: `${site.url}${PAGE}` }))
    await loopLagP99(site)
    const alone = await visit(site, ms)
    const lagAlone = await loopLagP99(site)
    let visiting = true
    const flooding = load(
      FLOOD_MAX,
      FLOOD_CONNECTIONS,
      (i) => ({ url: `${site.url}${PLAUSIBLE[i % PLAUSIBLE.length]()}`, headers: { 'x-forwarded-for': `198.18.${Math.floor((i % FLOOD_ADDRESSES) / 250)}.${(i % FLOOD_ADDRESSES) % 250 + 1}` } }),
      { until: () => !visiting, maxMs: ms * 2 },
    )
    const flooded = await visit(site, ms).finally(() => (visiting = false))
    const flood = await flooding
    const lagFlood = await loopLagP99(site)
    const result = {
      page: PAGE,
      alone: { ...alone, loopLagP99Ms: lagAlone },
      duringFlood: { ...flooded, loopLagP99Ms: lagFlood },
      flood: { addresses: FLOOD_ADDRESSES, connections: FLOOD_CONNECTIONS, requests: flood.sent, seconds: flood.seconds, statuses: flood.statuses },
      p99Ratio: alone.p99Ms ? +(flooded.p99Ms / alone.p99Ms).toFixed(2) : null,
    }
    log('miss flood:', JSON.stringify(result))
    return result
  } finally {
    // SIGTERM: a profiled gateway writes its profile as it exits.
    if (profileDir) await site.gateway.stop('SIGTERM')
    await site.close()
  }
}

export const missFloodRows = (result) => [
  [
    'visitor p99 on a cached page, distributed miss flood / alone',
    `${result.p99Ratio}× (${result.duringFlood.p99Ms} ms / ${result.alone.p99Ms} ms); event-loop lag p99 ${result.duringFlood.loopLagP99Ms} ms (alone ${result.alone.loopLagP99Ms} ms); flood ${result.flood.requests} requests from ${result.flood.addresses} addresses, ${Object.entries(result.flood.statuses).map(([status, n]) => `${n}×${status}`).join(' ')}`,
  ],
]
