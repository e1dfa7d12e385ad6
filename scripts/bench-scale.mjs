// npm run bench -- --scale [--scales=1,10,100]: the site at 1×, 10× and 100×
// content (issue 39), generated in the embedded CMS's own format and read
// through CONTENT_DIR, each in a gateway and a renderer of its own with the
// default cache settings. Printed side by side: an overview page's bytes,
// the sitemap's bytes and build time, the warm-pass hit ratio over every
// sitemap address, the gateway's RSS, and what a purge of the articles' lists costs (since issue 50 a section's
// purge marks the pages that list it, not every article: docs/performance.md).
// Times are of a machine shared with others: compare columns, not runs.
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { request } from 'undici'
import { SCALES, writeScaledContent } from './scale-content.ts'
import { loadAverage, log, rssOf, startSystem, stop, tempDir } from './bench-processes.mjs'

const option = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)
const scales = (option('scales') ?? '1,10,100').split(',').map(Number).filter((scale) => scale in SCALES)
const PURGE_SECRET = randomBytes(16).toString('hex')
const CONCURRENCY = 4

/** A page as a browser asks for it (brotli), or as it is (`identity`, to read it). */
async function get(base, path, encoding = 'br') {
  const response = await request(`${base}${path}`, { headers: { 'accept-encoding': encoding } })
  const body = Buffer.from(await response.body.arrayBuffer())
  return { status: response.statusCode, cache: String(response.headers['x-cache']), bytes: body.byteLength, body }
}

/** Identity bytes of a page (what a crawler without compression downloads). */
async function bytesOf(base, path) {
  const response = await request(`${base}${path}`)
  return (await response.body.arrayBuffer()).byteLength
}

async function each(paths, visit) {
  let next = 0
  const results = []
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < paths.length) {
        const i = next++
        results[i] = await visit(paths[i])
      }
    }),
  )
  return results
}

async function rendersOf(system) {
  const text = await (await request(`${system.rendererUrl}/metrics`)).body.text()
  let total = 0
  for (const match of text.matchAll(/^http_requests_total\{[^}]*route="\/\*"[^}]*\} (\d+)/gm)) total += Number(match[1])
  return total
}

/** A port free now, for the gateway's internal listener (its /metrics). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
    server.once('error', reject)
  })
}

/** A gauge of the gateway's /metrics (the page cache's bytes and pages). */
async function gaugeOf(metricsUrl, name) {
  const text = await (await request(metricsUrl)).body.text()
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN)
}

const locs = (xml) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => new URL(match[1].replaceAll('&amp;', '&')))

async function measure(scale) {
  const dir = tempDir(`scale-${scale}x-`)
  const { entries } = writeScaledContent(dir, SCALES[scale])
  const internalPort = await freePort()
  const system = await startSystem(`${scale}x`, { CONTENT_DIR: dir, PURGE_SECRET, INTERNAL_PORT: String(internalPort) })
  const metricsUrl = `http://127.0.0.1:${internalPort}/metrics`
  try {
    const row = { scale: `${scale}×`, articles: entries.topical ?? 0 }
    const first = await bytesOf(system.url, '/actueel')
    const count = Number(/"entryCount":(\d+)/.exec((await get(system.url, '/actueel', 'identity')).body.toString())?.[1] ?? 0)
    const lastPage = Math.max(1, Math.ceil(count / 6))
    row.overviewFirst = first
    row.overviewLast = await bytesOf(system.url, `/actueel?pagina=${lastPage}`)
    row.jobsOverview = await bytesOf(system.url, '/werken-bij')

    // The sitemap, cold: the index and every child, built from the CMS's answers.
    const started = performance.now()
    const index = await get(system.url, '/sitemap.xml', 'identity')
    let sitemapBytes = index.bytes
    let largestChild = 0
    const pages = []
    for (const child of locs(index.body.toString())) {
      const answer = await bytesOf(system.url, child.pathname)
      const xml = (await get(system.url, child.pathname, 'identity')).body.toString()
      sitemapBytes += answer
      largestChild = Math.max(largestChild, (xml.match(/<url>/g) ?? []).length)
      pages.push(...locs(xml).map((url) => `${url.pathname}${url.search}`))
    }
    row.sitemapChildren = locs(index.body.toString()).length
    row.sitemapUrls = pages.length
    row.sitemapBytes = sitemapBytes
    row.sitemapColdMs = Math.round(performance.now() - started)
    const warmStarted = performance.now()
    await get(system.url, '/sitemap.xml')
    row.sitemapWarmMs = Math.round(performance.now() - warmStarted)

    // A cold pass stores every page; the warm pass after it counts what came from the page cache.
    await each(pages, (path) => get(system.url, path))
    const warm = await each(pages, (path) => get(system.url, path))
    // STALE is from the page cache too: a page whose TTL ran out during the cold pass, served at once and rendered again in the background.
    row.warmHitRatio = +(warm.filter((answer) => answer.cache === 'HIT' || answer.cache === 'STALE').length / warm.length).toFixed(4)
    row.warmHits = warm.filter((answer) => answer.cache === 'HIT').length
    row.warmMisses = warm.filter((answer) => answer.cache === 'MISS').length
    row.gatewayRssMiB = Math.round(rssOf(system.gateway.pid) / 1024 / 1024)
    row.rendererRssMiB = Math.round(rssOf(system.renderer.pid) / 1024 / 1024)
    row.pageCacheEntries = await gaugeOf(metricsUrl, 'page_cache_entries')
    row.pageCacheMiB = +((await gaugeOf(metricsUrl, 'page_cache_bytes')) / 1024 / 1024).toFixed(1)
    row.loadAverage = loadAverage()

    // A (soft) purge of the articles' section (its lists: overviews, the home page's news, the sitemap group), then a
    // pass over the article pages: what the visitors got, and how many renders it cost.
    const articles = pages.filter((path) => path.startsWith('/actueel'))
    const before = await rendersOf(system)
    const purged = await request(`${system.url}/api/purge`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-purge-secret': PURGE_SECRET }, body: JSON.stringify({ sections: ['topical'] }) })
    row.purgedPages = (await purged.body.json()).pages
    const after = await each(articles, (path) => get(system.url, path))
    row.afterPurgeMiss = after.filter((answer) => answer.cache === 'MISS').length
    row.afterPurgeStale = after.filter((answer) => answer.cache === 'STALE').length
    row.rendersAfterPurge = (await rendersOf(system)) - before
    return row
  } finally {
    await Promise.all([stop(system.gateway), stop(system.renderer)])
    rmSync(dir, { recursive: true, force: true })
  }
}

const rows = []
for (const scale of scales) {
  log(`measuring ${scale}×`)
  rows.push(await measure(scale))
}
const labels = {
  articles: 'articles',
  overviewFirst: '/actueel page 1, bytes',
  overviewLast: '/actueel last page, bytes',
  jobsOverview: '/werken-bij, bytes',
  sitemapChildren: 'sitemap children',
  sitemapUrls: 'sitemap addresses',
  sitemapBytes: 'sitemap bytes (index + children)',
  sitemapColdMs: 'sitemap cold build, ms',
  sitemapWarmMs: 'sitemap index warm, ms',
  warmHitRatio: 'warm pass: share from the page cache (HIT or STALE)',
  warmHits: 'warm pass: of which HIT',
  warmMisses: 'warm pass: MISS (rendered while the visitor waited)',
  gatewayRssMiB: 'gateway RSS after the passes, MiB',
  rendererRssMiB: 'renderer RSS after the passes, MiB',
  pageCacheEntries: 'pages in the page cache',
  pageCacheMiB: 'page cache, MiB as PAGE_CACHE_MAX_BYTES counts them',
  loadAverage: 'load average (1 min) then',
  purgedPages: "pages marked by a purge of topical (its lists)",
  afterPurgeMiss: 'article pages then MISS (visitor waited)',
  afterPurgeStale: 'article pages then STALE (served at once)',
  rendersAfterPurge: 'renders caused by that pass',
}
console.log(`| | ${rows.map((row) => row.scale).join(' | ')} |`)
console.log(`| --- | ${rows.map(() => '---:').join(' | ')} |`)
for (const [key, label] of Object.entries(labels)) console.log(`| ${label} | ${rows.map((row) => row[key]).join(' | ')} |`)
