// Whether the stale-page protection survives a flood (issue 31, item 3): every
// page of /sitemap.xml is stored, 5,000 requests with unknown query parameters
// follow, the pages pass their TTL, the renderer is killed, and each sitemap
// page is asked for again. A page kept past its TTL answers 200 (STALE) while
// no renderer answers; one pushed out of the cache answers 503. The flood
// comes from many addresses, so that it measures the page cache's protection,
// not a per-client budget.
import { load, log, sitemapPaths, sleep, startSite } from './report-kit.mjs'

const FLOOD = 5000
const PAGE_TTL_MS = 1000
/** Each flood request from an address of its own (198.18.0.0/15, through TRUST_PROXY=1): per-client budgets must not hide whether the cache keeps the sitemap pages. */
const floodClient = (i) => `198.18.${(i >> 8) & 255}.${i & 255}`

/** The sitemap pages' statuses with the renderer stopped after `flood` unknown-parameter requests. */
async function staleAfterFlood(flood) {
  const site = await startSite({ gatewayEnv: { TRUST_PROXY: '1', PAGE_CACHE_TTL_MS: String(PAGE_TTL_MS) } })
  try {
    const visitor = { 'x-forwarded-for': '198.51.100.20' }
    const paths = await sitemapPaths(site.url)
    const warm = await load(paths.length, 4, (i) => ({ url: `${site.url}${paths[i]}`, headers: visitor }))
    const warmedAt = performance.now()
    const flooded = await load(flood, 8, (i) => ({ url: `${site.url}${paths[i % paths.length]}?utm_source=${i}`, headers: { 'x-forwarded-for': floodClient(i) } }), { maxMs: 120_000 })
    log('stale pages: flood', flooded)
    // Every stored sitemap page past its TTL, well within CACHE_STALE_IF_ERROR_MS.
    await sleep(Math.max(0, warmedAt + PAGE_TTL_MS + 500 - performance.now()))
    await site.renderer.stop('SIGKILL')
    const xCache = {}
    const countXCache = (response) => (xCache[response.headers['x-cache'] ?? 'none'] = (xCache[response.headers['x-cache'] ?? 'none'] ?? 0) + 1)
    const after = await load(paths.length, 4, (i) => ({ url: `${site.url}${paths[i]}`, headers: visitor }), { timeoutMs: 10_000, onResponse: countXCache })
    const result = {
      sitemapPages: paths.length,
      warmStatuses: warm.statuses,
      floodRequests: flooded.sent,
      floodSeconds: flooded.seconds,
      floodStatuses: flooded.statuses,
      statusesWithRendererStopped: after.statuses,
      xCacheWithRendererStopped: xCache,
      answered200: after.statuses[200] ?? 0,
    }
    log('stale pages:', result)
    return result
  } finally {
    await site.close()
  }
}

/** The flood, and the same without it: that all pages answer stale without a flood shows the measurement works. */
export async function measureStalePages() {
  const withoutFlood = await staleAfterFlood(0)
  return { ...(await staleAfterFlood(FLOOD)), withoutFloodAnswered200: withoutFlood.answered200 }
}

export const stalePagesRows = (result) => [
  [
    `sitemap pages 200 after ${result.floodRequests} unknown-parameter requests, renderer stopped`,
    `${result.answered200} of ${result.sitemapPages} (${Object.entries(result.statusesWithRendererStopped).map(([status, n]) => `${n}×${status}`).join(' ')}; ${result.withoutFloodAnswered200} without the flood)`,
  ],
]
