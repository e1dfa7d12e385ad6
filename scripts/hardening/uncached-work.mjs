// CMS calls and renders that one client's requests cost, per 1,000 requests
// (issue 31, items 1, 3 and 4). The CMS calls are counted where the CMS sees
// them: a second gateway serves only its embedded content API (on
// EMBEDDED_CMS_PORT), and the measured gateway reaches it through a counting
// proxy (CRAFT_API_URL). Renders are counted by the renderer (its /metrics).
// The gateway trusts one proxy (TRUST_PROXY=1) and is reached from loopback,
// as nginx reaches it; each kind of request comes from a client of its own
// (X-Forwarded-For), so that one kind's budget does not decide the next.
import { freePort, load, log, randomSlug, rendersOf, startCountingProxy, startService, startSite, waitFor } from './report-kit.mjs'

const REQUESTS = 1000
const CONNECTIONS = 8

const ipv6In64 = () => `2001:db8:31:64:${Array.from({ length: 4 }, () => Math.floor(Math.random() * 0x10000).toString(16)).join(':')}`

export const kinds = [
  { name: 'onePath', label: 'one unknown path, repeated', client: () => '203.0.113.1', path: () => '/bestaat-niet' },
  { name: 'uniqueSlugs', label: 'unique unknown slugs', client: () => '203.0.113.2', path: () => `/actueel/${randomSlug()}` },
  { name: 'uniqueParams', label: 'unique unknown query parameters', client: () => '203.0.113.3', path: (i) => `/over-ons?utm_source=${i}` },
  { name: 'junkPreviews', label: 'unique junk preview tokens, one /64', client: ipv6In64, path: () => `/actueel?x-craft-preview=1&token=${randomSlug()}` },
]

export async function measureUncachedWork() {
  const cmsPort = await freePort()
  const cmsHost = startService('gateway.js', { LOG_LEVEL: 'warn', PORT: String(await freePort()), HOST: '127.0.0.1', INTERNAL_PORT: String(await freePort()), EMBEDDED_CMS_PORT: String(cmsPort), RENDERER_URL: 'http://127.0.0.1:9' })
  const proxy = await startCountingProxy(`http://127.0.0.1:${cmsPort}`)
  let site
  try {
    await waitFor(`http://127.0.0.1:${cmsPort}/cms/api`, { anyStatus: true, service: cmsHost })
    site = await startSite({ gatewayEnv: { CRAFT_API_URL: `${proxy.url}/cms/api`, TRUST_PROXY: '1' } })
    // The pages' shared data (site settings, navigation) is cached first: what follows is what each request adds.
    await load(5, 1, (i) => ({ url: `${site.url}${['/', '/actueel', '/over-ons', '/kantoren', '/werken-bij'][i]}` }))
    const results = {}
    for (const kind of kinds) {
      const callsBefore = proxy.calls()
      const rendersBefore = await rendersOf(site.rendererUrl)
      const run = await load(REQUESTS, CONNECTIONS, (i) => ({ url: `${site.url}${kind.path(i)}`, headers: { 'x-forwarded-for': kind.client() } }))
      const cmsCalls = proxy.calls() - callsBefore
      const renders = (await rendersOf(site.rendererUrl)) - rendersBefore
      const per1000 = (n) => Math.round((n * 1000) / Math.max(1, run.sent))
      results[kind.name] = { requests: run.sent, seconds: run.seconds, statuses: run.statuses, cmsCalls, renders, cmsCallsPer1000: per1000(cmsCalls), rendersPer1000: per1000(renders) }
      log('uncached work:', kind.label, results[kind.name])
    }
    return results
  } finally {
    await site?.close()
    await proxy.close()
    await cmsHost.stop()
  }
}

export const uncachedWorkRows = (result) =>
  kinds.map((kind) => {
    const figures = result[kind.name]
    return [`per 1,000: ${kind.label}`, `${figures.cmsCallsPer1000} CMS calls, ${figures.rendersPer1000} renders (${Object.entries(figures.statuses).map(([status, n]) => `${n}×${status}`).join(' ')})`]
  })
