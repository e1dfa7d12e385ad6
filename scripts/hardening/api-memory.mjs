// The gateway's memory against its cache bounds (issue 24): its RSS after
// 20,000 padded /api requests, then after 20,000 of every shape in turn, the
// accepted ones filling the /api cache to its bound. The /api limit per client
// is lifted: the memory bound must hold whatever the rate limit lets through.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { request } from 'undici'
import { CACHE_STATUS_HEADER, DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { load, log, startSite } from './report-kit.mjs'

const MiB = 1024 * 1024
const REQUESTS = 20_000
export const WARM_PAGES = ['/', '/actueel', '/kantoren', '/werken-bij', '/over-ons']

const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024

async function heapUsed(internalUrl) {
  const response = await request(`${internalUrl}/metrics`)
  const text = await response.body.text()
  return Number(/^nodejs_heap_size_used_bytes\{[^}]*\} (\d+(?:\.\d+)?(?:e\+\d+)?)/m.exec(text)?.[1] ?? 0)
}

const { ArticleBySlug, ArticleList } = createOperations(DEFAULT_SITE_HANDLE)
const pad = (i, bytes) => `${i}-${randomBytes(8).toString('hex')}`.padEnd(bytes, 'x')
const shapes = [
  // an unused variable of 60 KB
  [ArticleBySlug, (i) => ({ slug: ['premies-2027-uitgelegd'], padding: pad(i, 60_000) })],
  // a declared variable of 60 KB
  [ArticleBySlug, (i) => ({ slug: [pad(i, 60_000)] })],
  // a small declared variable, different every time: accepted, kept in the /api cache
  [ArticleBySlug, (i) => ({ slug: [`artikel-${i}-${randomBytes(4).toString('hex')}`] })],
  // the largest answers under distinct keys: every article, kept in the /api cache up to its bound
  [ArticleList, (i) => ({ limit: 100 + i, offset: 0 })],
]

/** REQUESTS /api requests of the given shapes, in turn; the gateway's RSS and heap before and after. */
async function apiRound(site, label, roundShapes) {
  const before = rssOf(site.gateway.child.pid)
  const run = await load(
    REQUESTS,
    20,
    (i) => {
      const [query, variables] = roundShapes[i % roundShapes.length]
      return { url: `${site.url}/api`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: variables(i) }) }
    },
    { maxMs: 180_000 },
  )
  const after = rssOf(site.gateway.child.pid)
  const result = {
    requests: run.sent,
    seconds: run.seconds,
    statuses: run.statuses,
    rssBeforeMiB: +(before / MiB).toFixed(1),
    rssAfterMiB: +(after / MiB).toFixed(1),
    rssGrowthMiB: +((after - before) / MiB).toFixed(1),
    heapUsedAfterMiB: +((await heapUsed(site.internalUrl)) / MiB).toFixed(1),
  }
  log(label, result)
  return result
}

export async function measureApiMemory() {
  // Memory, not budgets, is measured here: the /api rate limit and the work budget of uncached requests are lifted.
  const site = await startSite({ gatewayEnv: { API_RATE_LIMIT: '1000000', CLIENT_WORK_BUDGET: '1000000000' } })
  try {
    for (const path of WARM_PAGES) await load(3, 1, () => ({ url: `${site.url}${path}` }))
    // The attack first: an unused variable of 60 KB, different every time.
    const paddedApi = await apiRound(site, 'padded /api', [shapes[0]])
    // Then every shape in turn, the accepted ones filling the /api cache to its bound.
    const mixedApi = await apiRound(site, 'mixed /api', shapes)
    const payloadAfter = await request(`${site.url}/kantoren/_payload.json`)
    await payloadAfter.body.dump()
    // STALE is still the stored entry (its TTL may pass during a slow round); MISS means it was pushed out.
    mixedApi.pagesDataCache = payloadAfter.headers[CACHE_STATUS_HEADER]
    mixedApi.pagesDataStillCached = ['HIT', 'STALE'].includes(mixedApi.pagesDataCache)
    return { paddedApi, mixedApi }
  } finally {
    await site.close()
  }
}

export const apiMemoryRows = ({ paddedApi, mixedApi }) => [
  [`gateway RSS, ${paddedApi.requests} padded /api requests`, `${paddedApi.rssBeforeMiB} → ${paddedApi.rssAfterMiB} MiB (heap in use ${paddedApi.heapUsedAfterMiB} MiB)`],
  [`gateway RSS, ${mixedApi.requests} /api requests of every shape`, `→ ${mixedApi.rssAfterMiB} MiB (heap ${mixedApi.heapUsedAfterMiB} MiB); pages' data still cached: ${mixedApi.pagesDataStillCached ? 'yes' : 'no'} (${mixedApi.pagesDataCache})`],
]
