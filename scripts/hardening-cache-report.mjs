// `node --import tsx scripts/hardening-cache-report.mjs`: what requests of
// unknown paths and parameters cost a running gateway (issue 31, items 1
// and 3), measured on the built services (dist/) with the embedded content,
// 8 connections at a time. Prints JSON:
// - CMS calls and renders per 1,000 requests of one unknown path, unique
//   unknown paths, unique unknown slugs and unique unknown query parameters;
// - whether every sitemap page still answers 200 (STALE) with the renderer
//   stopped after 5,000 requests of unknown parameters.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { freePort } from './free-port.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const log = (...args) => console.error('[cache-report]', ...args)
const CONNECTIONS = 8

const children = []
function start(file, env) {
  const child = spawn(process.execPath, [join(root, 'dist', file)], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'ignore', 'inherit'] })
  children.push(child)
  return child
}
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')))

async function waitFor(url) {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      const response = await request(url)
      await response.body.dump()
      if (response.statusCode === 200) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${url} did not come up`)
}

/** Runs `count` requests of the URLs `make(i)` gives, CONNECTIONS at a time; returns the statuses seen. */
async function load(count, make) {
  const statuses = {}
  let next = 0
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < count) {
        const response = await request(make(next++))
        await response.body.dump()
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1
      }
    }),
  )
  return statuses
}

async function counter(url, pattern) {
  const text = await (await request(`${url}/metrics`)).body.text()
  let total = 0
  for (const match of text.matchAll(pattern)) total += Number(match[1])
  return total
}

if (!existsSync(join(root, 'dist', 'gateway.js'))) throw new Error('run `npm run build` first')
const [port, rendererPort, internalPort] = await Promise.all([freePort(), freePort(), freePort()])
const secret = randomBytes(24).toString('base64url')
const common = { LOG_LEVEL: 'warn', RENDER_SECRET: secret }
const renderer = start('renderer.js', { ...common, RENDERER_PORT: String(rendererPort), GATEWAY_URL: `http://127.0.0.1:${port}` })
// Small page-cache bounds, as a small instance would have; a short TTL, so that pages are past it when the renderer stops.
start('gateway.js', {
  ...common,
  PORT: String(port),
  HOST: '127.0.0.1',
  INTERNAL_PORT: String(internalPort),
  RENDERER_URL: `http://127.0.0.1:${rendererPort}`,
  PAGE_CACHE_MAX_ENTRIES: '500',
  PAGE_CACHE_TTL_MS: '15000',
})
const site = `http://127.0.0.1:${port}`
const internal = `http://127.0.0.1:${internalPort}`
const rendererUrl = `http://127.0.0.1:${rendererPort}`
await waitFor(`${internal}/readyz`)

const cmsCalls = () => counter(internal, /^upstream_request_duration_seconds_count\{[^}]*\} (\d+)/gm)
const renders = () => counter(rendererUrl, /^http_requests_total\{[^}]*route="\/\*"[^}]*\} (\d+)/gm)

const sitemap = await (await request(`${site}/sitemap.xml`)).body.text()
const sitemapPaths = [...sitemap.matchAll(/<loc>https?:\/\/[^/<]+([^<]*)<\/loc>/g)].map((match) => match[1] || '/')
for (const path of sitemapPaths) await load(2, () => `${site}${path}`)

const results = { sitemapPages: sitemapPaths.length }
const scenarios = {
  oneUnknownPath: () => `${site}/bestaat-niet`,
  uniqueUnknownPaths: (i) => `${site}/actueel/bestaat-niet-${i}`,
  uniqueUnknownSlugs: (i) => `${site}/topical/bestaat-niet-${i}`,
  uniqueUnknownParams: (i) => `${site}/over-ons?utm_source=${i}`,
}
for (const [name, make] of Object.entries(scenarios)) {
  const [callsBefore, rendersBefore] = [await cmsCalls(), await renders()]
  const statuses = await load(1000, make)
  results[name] = { requests: 1000, statuses, cmsCalls: (await cmsCalls()) - callsBefore, renders: (await renders()) - rendersBefore }
  log(name, results[name])
}

// 5,000 requests of unknown parameters (three kinds), then the renderer stops: the sitemap's pages should stand in, stale.
const floods = [(i) => `${site}/?a=${i}`, (i) => `${site}/over-ons?utm_source=${i}`, (i) => `${site}/?${'&'.repeat(1 + (i % 500))}${i}`]
const floodStatuses = await load(5000, (i) => floods[i % floods.length](i))
renderer.kill('SIGKILL')
await new Promise((resolve) => renderer.once('exit', resolve))
// Past the pages' TTL, so that each needs a render that cannot happen.
await new Promise((resolve) => setTimeout(resolve, 15_500))
const answers = {}
for (const path of sitemapPaths) {
  const response = await request(`${site}${path}`)
  await response.body.dump()
  const key = `${response.statusCode} ${response.headers['x-cache'] ?? '-'}`
  answers[key] = (answers[key] ?? 0) + 1
}
results.sitemapAfterFlood = { floodRequests: 5000, floodStatuses, rendererStopped: true, answers }
log('sitemap after the flood', results.sitemapAfterFlood)
console.log(JSON.stringify(results, null, 2))
process.exit(0)
