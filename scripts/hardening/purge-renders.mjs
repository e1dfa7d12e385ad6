// Renders per page after a purge under 50 concurrent visitors (issue 33,
// item 7). For each of a few pages: the page stored, a purge of the site
// settings (which every page is built from), then 50 visitors ask for it at
// once, each over a connection of its own opened beforehand; renders counted
// by the renderer (its /metrics). Without single flight for renders each
// visitor that misses before the first render is stored renders the page.
import { request } from 'undici'
import { Agent } from 'undici'
import { log, rendersOf, startSite } from './report-kit.mjs'

const VISITORS = 50
const PAGES = ['/', '/kantoren', '/over-ons', '/actueel', '/werken-bij']
const PURGE_SECRET = 'hardening-purge-secret'

/** 50 visitors from one address, as nginx's: TRUST_PROXY=1 and X-Forwarded-For of their own, so no one client's budget decides. */
const visitor = (i) => `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`

async function purgeSiteSettings(siteUrl) {
  const response = await request(`${siteUrl}/api/purge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-purge-secret': PURGE_SECRET },
    body: JSON.stringify({ sections: ['siteSettings'] }),
  })
  const answer = await response.body.json()
  if (response.statusCode !== 200) throw new Error(`purge answered ${response.statusCode}: ${JSON.stringify(answer)}`)
  return answer
}

/** `count` requests for one URL sent together over connections opened (and warmed on /healthz) beforehand. */
async function atOnce(url, count) {
  const agent = new Agent({ connections: count, pipelining: 0, headersTimeout: 15_000, bodyTimeout: 15_000 })
  const origin = new URL(url).origin
  await Promise.all(Array.from({ length: count }, async () => (await request(`${origin}/healthz`, { dispatcher: agent })).body.dump()))
  const statuses = {}
  const cache = {}
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      try {
        const response = await request(url, { dispatcher: agent, headers: { 'x-forwarded-for': visitor(i) } })
        await response.body.dump()
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1
        const status = String(response.headers['x-cache'] ?? 'none')
        cache[status] = (cache[status] ?? 0) + 1
      } catch {
        statuses.error = (statuses.error ?? 0) + 1
      }
    }),
  )
  await agent.close()
  return { statuses, cache }
}

export async function measurePurgeRenders({ gatewayEnv = {} } = {}) {
  const site = await startSite({ gatewayEnv: { PURGE_SECRET, TRUST_PROXY: '1', ...gatewayEnv } })
  try {
    const pages = {}
    for (const path of PAGES) {
      await (await request(`${site.url}${path}`)).body.dump()
      const purge = await purgeSiteSettings(site.url)
      const before = await rendersOf(site.rendererUrl)
      const run = await atOnce(`${site.url}${path}`, VISITORS)
      pages[path] = { renders: (await rendersOf(site.rendererUrl)) - before, purgedPages: purge.pages, ...run }
      log('purge renders:', path, pages[path])
    }
    const renders = Object.values(pages).map((page) => page.renders)
    return { visitors: VISITORS, pages, rendersPerPage: { min: Math.min(...renders), max: Math.max(...renders), mean: +(renders.reduce((a, b) => a + b, 0) / renders.length).toFixed(1) } }
  } finally {
    await site.close()
  }
}

export const purgeRendersRows = (result) => [
  [
    `renders per page after a purge, ${result.visitors} visitors at once`,
    `${result.rendersPerPage.mean} (min ${result.rendersPerPage.min}, max ${result.rendersPerPage.max}; ${Object.entries(result.pages)
      .map(([path, page]) => `${path} ${page.renders}`)
      .join(', ')})`,
  ],
]
