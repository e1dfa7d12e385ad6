// `npm run hardening`: what one stranger can cost a running gateway, measured
// on the built services (dist/) with the embedded content. Prints JSON and
// writes bench/hardening.json:
// - the gateway's RSS after 20,000 padded /api requests (against its cache bounds);
// - CMS calls per 1,000 junk-token requests from one address;
// - CMS calls and renders per 1,000 unique junk preview tokens from one IPv6 /64, each from another address of it (TRUST_PROXY=1);
// - CMS calls per 300 readiness probes.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { freePort } from './free-port.mjs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'undici'
import { CACHE_STATUS_HEADER, DEFAULT_SITE_HANDLE } from '../shared/constants.ts'
import { createOperations } from '../shared/operations.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const log = (...args) => console.error('[hardening]', ...args)
const MiB = 1024 * 1024

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

const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024

/** Runs `count` requests made by `make(i)`, `concurrency` at a time; returns the statuses seen. */
async function load(count, concurrency, make) {
  const statuses = {}
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++
        const { url, ...options } = make(i)
        const response = await request(url, options)
        await response.body.dump()
        statuses[response.statusCode] = (statuses[response.statusCode] ?? 0) + 1
      }
    }),
  )
  return statuses
}

if (!existsSync(join(root, 'dist', 'gateway.js'))) throw new Error('run `npm run build` first')
const [port, rendererPort, internalPort] = await Promise.all([freePort(), freePort(), freePort()])
const secret = randomBytes(24).toString('base64url')
const common = { LOG_LEVEL: 'warn', RENDER_SECRET: secret }
start('renderer.js', { ...common, RENDERER_PORT: String(rendererPort), GATEWAY_URL: `http://127.0.0.1:${port}` })
// The /api limit per address is lifted, and the /api rounds come from 20,000 client addresses (X-Forwarded-For,
// TRUST_PROXY=1): the memory bound must hold whatever the per-client limits let through.
const gateway = start('gateway.js', {
  ...common,
  PORT: String(port),
  HOST: '127.0.0.1',
  INTERNAL_PORT: String(internalPort),
  RENDERER_URL: `http://127.0.0.1:${rendererPort}`,
  API_RATE_LIMIT: '1000000',
  TRUST_PROXY: '1',
})
const site = `http://127.0.0.1:${port}`
const internal = `http://127.0.0.1:${internalPort}`
await waitFor(`${internal}/readyz`)

async function metricSum(url, pattern) {
  const response = await request(`${url}/metrics`)
  const text = await response.body.text()
  let total = 0
  for (const match of text.matchAll(pattern)) total += Number(match[1])
  return total
}
const cmsCalls = () => metricSum(internal, /^upstream_request_duration_seconds_count\{[^}]*\} (\d+)/gm)
/** Pages the renderer was asked for (its catch-all route), whatever it answered. */
const renders = () => metricSum(`http://127.0.0.1:${rendererPort}`, /^http_requests_total\{[^}]*route="\/\*"[^}]*\} (\d+)/gm)

const results = {}

// 1. Memory: every shape of padded /api request, different every time.
for (const path of ['/', '/actueel', '/kantoren', '/werken-bij', '/over-ons']) await load(3, 1, () => ({ url: `${site}${path}` }))
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
async function heapUsed() {
  const response = await request(`${internal}/metrics`)
  const text = await response.body.text()
  return Number(/^nodejs_heap_size_used_bytes\{[^}]*\} (\d+(?:\.\d+)?(?:e\+\d+)?)/m.exec(text)?.[1] ?? 0)
}

/** 20,000 /api requests of the given shapes, in turn; the gateway's RSS and heap before and after. */
async function apiRound(label, roundShapes) {
  const before = rssOf(gateway.pid)
  const sentAt = Date.now()
  const statuses = await load(20_000, 20, (i) => {
    const [query, variables] = roundShapes[i % roundShapes.length]
    const client = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`
    return { url: `${site}/api`, method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': client }, body: JSON.stringify({ query, variables: variables(i) }) }
  })
  const after = rssOf(gateway.pid)
  const result = {
    requests: 20_000,
    seconds: (Date.now() - sentAt) / 1000,
    statuses,
    rssBeforeMiB: +(before / MiB).toFixed(1),
    rssAfterMiB: +(after / MiB).toFixed(1),
    rssGrowthMiB: +((after - before) / MiB).toFixed(1),
    heapUsedAfterMiB: +((await heapUsed()) / MiB).toFixed(1),
  }
  log(label, result)
  return result
}

// The attack first: an unused variable of 60 KB, different every time.
results.paddedApi = await apiRound('padded /api', [shapes[0]])
// Then every shape in turn, the accepted ones filling the /api cache to its bound.
results.mixedApi = await apiRound('mixed /api', shapes)
const payloadAfter = await request(`${site}/kantoren/_payload.json`)
await payloadAfter.body.dump()
results.mixedApi.pagesDataStillCached = payloadAfter.headers[CACHE_STATUS_HEADER] === 'HIT'


// 2. Junk tokens from one address: previews are limited, the rest is served from the caches.
const junkKinds = [
  (i) => ({ url: `${site}/actueel?x-craft-preview=1&token=junk-${i}` }),
  (i) => ({ url: `${site}/actueel?token=junk-${i}` }),
  (i) => ({ url: `${site}/actueel`, headers: { cookie: `craft_token=junk-${i}` } }),
  (i) => ({ url: `${site}/actueel/_payload.json`, headers: { cookie: `craft_token=junk-${i}` } }),
  (i) => ({ url: `${site}/actueel?x-craft-preview=1&token=not.a.token.${i}` }),
]
const callsBeforeJunk = await cmsCalls()
const junkStatuses = await load(1000, 20, (i) => junkKinds[i % junkKinds.length](i))
results.junkTokens = { requests: 1000, statuses: junkStatuses, cmsCalls: (await cmsCalls()) - callsBeforeJunk }
log('junk tokens', results.junkTokens)

// 3. Unique junk preview tokens from one IPv6 /64, each request from another address of it: one client's budget.
const callsBeforeSubnet = await cmsCalls()
const rendersBeforeSubnet = await renders()
const subnetStatuses = await load(1000, 20, (i) => ({
  url: `${site}/actueel?x-craft-preview=1&token=junk-${i}`,
  headers: { 'x-forwarded-for': `2001:db8:77:1:${((i * 7919) % 65536).toString(16)}::${(i + 1).toString(16)}` },
}))
results.junkPreviewsFromOneSubnet = { requests: 1000, statuses: subnetStatuses, cmsCalls: (await cmsCalls()) - callsBeforeSubnet, renders: (await renders()) - rendersBeforeSubnet }
log('junk previews from one /64', results.junkPreviewsFromOneSubnet)

// 4. Readiness probes, 30 at a time.
const callsBeforeProbes = await cmsCalls()
const probeAgent = new Agent({ connections: 30 })
const probeStatuses = await load(300, 30, () => ({ url: `${internal}/readyz`, dispatcher: probeAgent }))
results.readinessProbes = { probes: 300, statuses: probeStatuses, cmsCalls: (await cmsCalls()) - callsBeforeProbes }
log('readiness', results.readinessProbes)
await probeAgent.close()

mkdirSync(join(root, 'bench'), { recursive: true })
writeFileSync(join(root, 'bench', 'hardening.json'), `${JSON.stringify(results, null, 2)}\n`)
console.log(JSON.stringify(results, null, 2))
process.exit(0)
