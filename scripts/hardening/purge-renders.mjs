// Renders per page after a purge under 50 concurrent visitors (issue 33,
// item 7). For each of a few pages: the page stored, a purge of the site
// settings (which every page is built from), then 50 visitors ask for it at
// once, each over a connection of its own opened beforehand; renders counted
// by the renderer (its /metrics). Without single flight for renders each
// visitor that misses before the first render is stored renders the page.
// Then the same with two gateways sharing Redis (and one renderer), the 50
// visitors split over both, the purge sent to one of them.
import { randomBytes } from 'node:crypto'
import { Agent, request } from 'undici'
import { startRedis } from './redis-pause.mjs'
import { freePort, log, rendersOf, sleep, startService, startSite, waitFor } from './report-kit.mjs'

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

/** `count` requests for a path sent together, spread over the origins, over connections opened (and warmed on /healthz) beforehand. */
async function atOnce(origins, path, count) {
  const agents = origins.map(() => new Agent({ connections: Math.ceil(count / origins.length), pipelining: 0, headersTimeout: 15_000, bodyTimeout: 15_000 }))
  const originOf = (i) => origins[i % origins.length]
  const agentOf = (i) => agents[i % agents.length]
  await Promise.all(Array.from({ length: count }, async (_, i) => (await request(`${originOf(i)}/healthz`, { dispatcher: agentOf(i) })).body.dump()))
  const statuses = {}
  const cache = {}
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      try {
        const response = await request(`${originOf(i)}${path}`, { dispatcher: agentOf(i), headers: { 'x-forwarded-for': visitor(i) } })
        await response.body.dump()
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1
        const status = String(response.headers['x-cache'] ?? 'none')
        cache[status] = (cache[status] ?? 0) + 1
      } catch {
        statuses.error = (statuses.error ?? 0) + 1
      }
    }),
  )
  await Promise.all(agents.map((agent) => agent.close()))
  return { statuses, cache }
}

/** Per page: stored in every gateway, the site settings purged on the first, then the visitors at once; renders counted by the renderer. */
async function rendersAfterPurges(origins, rendererUrl, settle) {
  const pages = {}
  for (const path of PAGES) {
    for (const origin of origins) await (await request(`${origin}${path}`)).body.dump()
    const purge = await purgeSiteSettings(origins[0])
    await settle()
    const before = await rendersOf(rendererUrl)
    const run = await atOnce(origins, path, VISITORS)
    pages[path] = { renders: (await rendersOf(rendererUrl)) - before, purgedPages: purge.pages, ...run }
    log('purge renders:', origins.length, 'gateway(s)', path, pages[path])
  }
  const renders = Object.values(pages).map((page) => page.renders)
  return { pages, rendersPerPage: { min: Math.min(...renders), max: Math.max(...renders), mean: +(renders.reduce((a, b) => a + b, 0) / renders.length).toFixed(1) } }
}

/** Two gateways sharing a redis-server and one renderer, as behind nginx. */
async function startSharedPair() {
  const { redis, url: redisUrl } = await startRedis()
  const [rendererPort, ...ports] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()])
  const common = { LOG_LEVEL: 'warn', RENDER_SECRET: randomBytes(24).toString('base64url') }
  const gateways = [0, 1].map((n) => ({
    url: `http://127.0.0.1:${ports[n * 2]}`,
    internalUrl: `http://127.0.0.1:${ports[n * 2 + 1]}`,
    service: startService('gateway.js', { ...common, PORT: String(ports[n * 2]), HOST: '127.0.0.1', INTERNAL_PORT: String(ports[n * 2 + 1]), RENDERER_URL: `http://127.0.0.1:${rendererPort}`, REDIS_URL: redisUrl, PURGE_SECRET, TRUST_PROXY: '1' }),
  }))
  const renderer = startService('renderer.js', { ...common, RENDERER_PORT: String(rendererPort), GATEWAY_URL: gateways[0].url })
  const pair = {
    origins: gateways.map((gateway) => gateway.url),
    rendererUrl: `http://127.0.0.1:${rendererPort}`,
    async close() {
      await Promise.all([...gateways.map((gateway) => gateway.service.stop()), renderer.stop(), redis.stop()])
    },
  }
  try {
    for (const gateway of gateways) await waitFor(`${gateway.internalUrl}/readyz`, { service: gateway.service })
  } catch (error) {
    await pair.close()
    throw error
  }
  return pair
}

export async function measurePurgeRenders() {
  const site = await startSite({ gatewayEnv: { PURGE_SECRET, TRUST_PROXY: '1' } })
  let oneGateway
  try {
    oneGateway = await rendersAfterPurges([site.url], site.rendererUrl, async () => undefined)
  } finally {
    await site.close()
  }
  const pair = await startSharedPair()
  try {
    // The purge reaches the other gateway over Redis's pub/sub within milliseconds: a measurement, not a test, gives it 300.
    const twoGateways = await rendersAfterPurges(pair.origins, pair.rendererUrl, () => sleep(300))
    return { visitors: VISITORS, oneGateway, twoGateways }
  } finally {
    await pair.close()
  }
}

const row = (label, figures) => [
  label,
  `${figures.rendersPerPage.mean} (min ${figures.rendersPerPage.min}, max ${figures.rendersPerPage.max}; ${Object.entries(figures.pages)
    .map(([path, page]) => `${path} ${page.renders}`)
    .join(', ')})`,
]

export const purgeRendersRows = (result) => [
  row(`renders per page after a purge, ${result.visitors} visitors at once`, result.oneGateway),
  row(`the same, two gateways sharing Redis`, result.twoGateways),
]
