// `npm run bench`: the site against the physical limit, measured side by side
// in one run. Builds, starts the system on the embedded content, and loads it
// with wrk on loopback next to two references serving the same bytes: nginx
// (a static file) and a bare Fastify route. Writes bench/results.json.
//
//   npm run bench                     10 s rounds, 3 interleaved rounds
//   npm run bench -- --smoke          one round of a fixed number of requests per scenario, each
//                                     answer checked (run by npm test so it cannot rot)
//   npm run bench -- --js             only the first-load JavaScript of the build (no servers, no load)
//   --out=FILE                        write the results there instead of bench/results.json
import { execFileSync, execSync, spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { describeFirstLoad, firstLoadJavaScript } from './first-load-js.mjs'
import { freePort } from './free-port.mjs'
import { randomBytes, randomUUID } from 'node:crypto'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { dataJsonOf, payloadJson } from '../gateway/payload/payload-json.ts'
import { DEFAULT_SITE_HANDLE, RENDER_SIGNATURE_HEADER } from '../shared/constants.ts'
import { createOperations } from '../shared/operations.ts'
import { RENDER_REQUEST_CONTENT_TYPE, encodeRenderRequest } from '../shared/render-request.ts'
import { RenderSigner } from '../shared/render-signature.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const smoke = process.argv.includes('--smoke')
const ROUNDS = smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = 50
const WARM_TTFB = 30
const DISTINCT_URLS = smoke ? 500 : 10_000
// The smoke round counts requests, not seconds: a loaded machine makes it slower, never emptier.
const SMOKE_REQUESTS = 40
const SMOKE_CONCURRENCY = 8
const out = process.argv.find((arg) => arg.startsWith('--out='))?.slice('--out='.length) ?? join(root, 'bench/results.json')
// Every system's gateway and renderer share it, as `npm start` and the containers do: renders are signed and checked.
const RENDER_SECRET = randomBytes(32).toString('base64url')

const log = (...args) => console.error('[bench]', ...args)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function ensureTools() {
  const missing = [
    ['/usr/sbin/nginx', 'nginx-light'],
    ...(smoke ? [] : [['/usr/bin/wrk', 'wrk']]),
  ].filter(([binary]) => !existsSync(binary))
  if (missing.length === 0) return
  const names = missing.map(([, pkg]) => pkg).join(' ')
  log(`installing ${names} from Debian's packages`)
  execSync(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${names}`, { stdio: ['ignore', process.stderr, process.stderr] })
}

/** Servers on core 0, the load generator on core 1, where the machine has two. */
const cores = Number(execSync('nproc').toString().trim())
const pin = (core, command, args) => (cores > 1 && existsSync('/usr/bin/taskset') ? ['taskset', ['-c', String(core), command, ...args]] : [command, args])

const children = []
function start(command, args, env = {}) {
  const [cmd, argv] = pin(0, command, args)
  const child = spawn(cmd, argv, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)))
  child.on('exit', (code) => {
    if (code && !stopping) log(`${args.join(' ')} exited ${code}: ${stderr}`)
  })
  children.push(child)
  return child
}
let stopping = false
const tempDirs = []
/** A folder of this run's own, removed when the run ends. */
function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  tempDirs.push(dir)
  return dir
}
function stopAll() {
  stopping = true
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
}
process.on('exit', stopAll)
process.on('SIGINT', () => process.exit(130))

/** Waits for a server to answer; 60 s is only the bound for one that never starts (a loaded machine starts slowly). */
async function waitFor(url) {
  for (let i = 0; i < 1200; i++) {
    try {
      const response = await fetch(url)
      await response.arrayBuffer()
      return
    } catch {
      await sleep(50)
    }
  }
  throw new Error(`${url} did not come up`)
}

/** Gateway and renderer as the containers run them, on their own ports. */
async function startSystem(name, env) {
  const port = await freePort()
  const rendererPort = await freePort()
  const internalPort = await freePort()
  const common = { ...(process.env.CONTENT_DIR ? { CONTENT_DIR: process.env.CONTENT_DIR } : {}), LOG_LEVEL: 'warn', PORT: String(port), INTERNAL_PORT: String(internalPort), RENDERER_PORT: String(rendererPort), RENDERER_URL: `http://127.0.0.1:${rendererPort}`, GATEWAY_URL: `http://127.0.0.1:${port}`, API_RATE_LIMIT: '1000000', RATE_LIMIT_WINDOW_MS: '1000', RENDER_SECRET, ...env }
  const renderer = start(process.execPath, [join(root, 'dist/renderer.js')], common)
  const gateway = start(process.execPath, [join(root, 'dist/gateway.js')], common)
  await waitFor(`http://127.0.0.1:${port}/healthz`)
  await waitFor(`http://127.0.0.1:${rendererPort}/healthz`)
  log(`${name} on ${port}`)
  return { name, url: `http://127.0.0.1:${port}`, rendererUrl: `http://127.0.0.1:${rendererPort}`, gateway, renderer }
}

async function startNginx(html) {
  const dir = tempDir('bench-nginx-')
  mkdirSync(join(dir, 'www'))
  writeFileSync(join(dir, 'www', 'index.html'), html)
  // nginx's workers run as an unprivileged user: they must be able to read the file.
  chmodSync(dir, 0o755)
  chmodSync(join(dir, 'www'), 0o755)
  chmodSync(join(dir, 'www', 'index.html'), 0o644)
  const port = await freePort()
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  default_type text/html;
  client_body_temp_path ${dir}/tmp;
  proxy_temp_path ${dir}/tmp;
  fastcgi_temp_path ${dir}/tmp;
  uwsgi_temp_path ${dir}/tmp;
  scgi_temp_path ${dir}/tmp;
  server {
    listen 127.0.0.1:${port};
    root ${dir}/www;
    location = / { try_files /index.html =404; }
  }
}
`,
  )
  start('/usr/sbin/nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir])
  await waitFor(`http://127.0.0.1:${port}/`)
  return `http://127.0.0.1:${port}/`
}

/**
 * A bare Fastify route with the page's bytes (and `headers`, when given); with
 * `upstream`, one that fetches them from there (undici) and sends them on.
 */
async function startBareFastify(html, { upstream, headers } = {}) {
  const dir = tempDir('bench-fastify-')
  writeFileSync(join(dir, 'index.html'), html)
  if (headers) writeFileSync(join(dir, 'headers.json'), JSON.stringify(headers))
  const port = await freePort()
  start(process.execPath, [join(root, 'scripts/bench-bare-fastify.mjs')], {
    PORT: String(port),
    BODY_FILE: join(dir, 'index.html'),
    NODE_PATH: join(root, 'node_modules'),
    ...(upstream ? { UPSTREAM_URL: upstream } : {}),
    ...(headers ? { HEADERS_FILE: join(dir, 'headers.json') } : {}),
  })
  await waitFor(`http://127.0.0.1:${port}/`)
  return `http://127.0.0.1:${port}/`
}

/** The render request the gateway sends for the home page once its data is cached: the renderer's work alone. */
async function homeRenderRequest(system) {
  const part = async (name) => (await fetch(`${system.url}/_payload.json?part=${name}`)).json()
  const primary = await part('primary')
  const deferred = await part('deferred')
  return encodeRenderRequest(payloadJson(primary), dataJsonOf(deferred.data))
}

/** One wrk run (optionally with a Lua script): requests per second and latency percentiles in milliseconds. */
function wrk(url, seconds, script) {
  const [cmd, argv] = pin(1, 'wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...(script ? ['-s', script] : []), url])
  const out = execFileSync(cmd, argv, { encoding: 'utf8' })
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0)
  const unit = (value, suffix) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[suffix] ?? 1)
  const pct = (p) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out)
    return m ? unit(m[1], m[2]) : null
  }
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const errors = socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0
  return { rps, p50: pct(50), p99: pct(99), non2xx, errors }
}

const percentile = (values, p) => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

/** Whether a 2xx answer's body is what the scenario serves; a body that does not even parse is a wrong one. */
function answersRightly(scenario, text) {
  try {
    return scenario.answers(text)
  } catch {
    return false
  }
}

/**
 * The smoke round of one scenario: SMOKE_REQUESTS requests, SMOKE_CONCURRENCY
 * at a time, each answer's status and body checked; in the shape of wrk's
 * results, with how many requests were answered and how many answers were wrong.
 */
async function smokeRound(scenario, options) {
  const latencies = []
  let non2xx = 0
  let wrong = 0
  let errors = 0
  const started = performance.now()
  const worker = async (count) => {
    for (let i = 0; i < count; i++) {
      const sent = performance.now()
      try {
        const response = await request(scenario.url, options)
        const text = await response.body.text()
        latencies.push(performance.now() - sent)
        if (response.statusCode < 200 || response.statusCode >= 300) non2xx++
        else if (!answersRightly(scenario, text)) wrong++
      } catch (error) {
        errors++
        log(`#${scenario.id}: ${error.message}`)
      }
    }
  }
  await Promise.all(Array.from({ length: SMOKE_CONCURRENCY }, () => worker(SMOKE_REQUESTS / SMOKE_CONCURRENCY)))
  const seconds = (performance.now() - started) / 1000
  const ms = (value) => (value === null ? null : Number(value.toFixed(2)))
  return { rps: latencies.length / seconds, p50: ms(percentile(latencies, 50)), p99: ms(percentile(latencies, 99)), non2xx, errors, requests: latencies.length, wrong }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Time to first byte of one request, in milliseconds. */
async function ttfb(url) {
  const started = performance.now()
  const response = await fetch(url)
  const reader = response.body.getReader()
  await reader.read()
  const elapsed = performance.now() - started
  await reader.cancel()
  return elapsed
}

function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
}

async function main() {
  if (!process.argv.includes('--no-build')) execSync('node scripts/build.mjs', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  if (process.argv.includes('--js')) {
    console.log(describeFirstLoad(firstLoadJavaScript(root)))
    return
  }
  ensureTools()

  const cached = await startSystem('page cache', { PAGE_CACHE: 'true' })
  const routed = await startSystem('page cache, hits routed', { PAGE_CACHE: 'true', PAGE_CACHE_FAST_PATH: 'false' })
  const rendered = await startSystem('page cache off', { PAGE_CACHE: 'false' })
  const fetching = await startSystem('page cache off, the renderer fetching its payloads', { PAGE_CACHE: 'false', RENDER_WITH_PAYLOAD: 'false' })
  const uncached = await startSystem('no caches', { PAGE_CACHE: 'false', QUERY_CACHE: 'false' })
  const html = Buffer.from(await (await fetch(`${cached.url}/`)).arrayBuffer())
  const nginx = await startNginx(html)
  const bare = await startBareFastify(html)
  const hops = await startBareFastify(html, { upstream: bare })
  // The headers a page-cache hit carries (those of one response, like its date and request id, left out).
  const hit = await fetch(`${cached.url}/`, { headers: { 'accept-encoding': 'identity' } })
  await hit.arrayBuffer()
  const perResponse = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'x-request-id'])
  const hitHeaders = Object.fromEntries([...hit.headers].filter(([name]) => !perResponse.has(name)))
  const bareWithHeaders = await startBareFastify(html, { headers: { ...hitHeaders, 'x-request-id': randomUUID() } })

  // What a right answer is, checked in the smoke round: the same bytes, the home page (its nonces differ), the payload, the data.
  const sameBytes = (text) => text === html.toString('utf8')
  const homeHeading = /<h1[^>]*>[\s\S]*?<\/h1>/.exec(html.toString('utf8'))?.[0]
  if (!homeHeading) throw new Error('the home page has no <h1>')
  const homePage = (text) => text.startsWith('<!DOCTYPE html>') && text.includes(homeHeading)
  const overOnsPayload = (text) => {
    const payload = JSON.parse(text)
    return payload.path === '/over-ons' && payload.status === 200
  }
  const serviceList = (text) => {
    const answer = JSON.parse(text)
    return answer.errors === undefined && answer.data?.entries?.length > 0
  }
  const scenarios = [
    { id: 1, name: 'nginx static file (reference)', url: nginx, answers: sameBytes },
    { id: 2, name: 'bare Fastify, same bytes (reference)', url: bare, answers: sameBytes },
    { id: '2h', name: 'bare Fastify, same bytes under the headers of a cached page (reference)', url: bareWithHeaders, answers: sameBytes },
    { id: 3, name: 'home through the gateway, page cache hit', url: `${cached.url}/`, answers: homePage },
    { id: '3b', name: 'home, page cache hit through the full Fastify route (before the fast path)', url: `${routed.url}/`, answers: homePage },
    { id: 4, name: 'home, page cache off (rendered every time)', url: `${rendered.url}/`, answers: homePage },
    { id: '4c', name: 'home, page cache off, the renderer fetching its payloads (before the hand-over)', url: `${fetching.url}/`, answers: homePage },
    { id: '4a', name: 'the renderer alone: the home page\'s render request (data handed over), rendered whole', url: `${rendered.rendererUrl}/`, script: 'render', answers: homePage },
    { id: '4b', name: 'floor of 4: two bare Fastify hops (undici between), no work', url: hops, answers: sameBytes },
    { id: 5, name: 'home, everything uncached', url: `${uncached.url}/`, answers: homePage },
    { id: 6, name: '/over-ons/_payload.json, cache hit', url: `${cached.url}/over-ons/_payload.json`, answers: overOnsPayload },
    { id: 7, name: 'POST /api allowlisted query, cache hit', url: `${cached.url}/api`, script: 'api', answers: serviceList },
  ]

  const luaDir = tempDir('bench-wrk-')
  const operations = createOperations(DEFAULT_SITE_HANDLE)
  const body = JSON.stringify({ query: operations.ServiceList, variables: { site: 'havenborg' } })
  const post = (name, contentType, text, headers = {}) => {
    const file = join(luaDir, `${name}.lua`)
    const extra = Object.entries(headers).map(([header, value]) => `wrk.headers[${JSON.stringify(header)}] = ${JSON.stringify(value)}\n`).join('')
    writeFileSync(file, `wrk.method = "POST"\nwrk.headers["Content-Type"] = ${JSON.stringify(contentType)}\n${extra}wrk.body = ${JSON.stringify(text)}\n`)
    return file
  }
  const renderBody = await homeRenderRequest(cached)
  const renderSignature = new RenderSigner(RENDER_SECRET).sign('POST', '/', renderBody)
  const scripts = {
    api: post('api', 'application/json', body),
    render: post('render', RENDER_REQUEST_CONTENT_TYPE, renderBody, { [RENDER_SIGNATURE_HEADER]: renderSignature }),
  }
  // The same requests for the smoke round, which sends them itself.
  const requests = {
    api: { method: 'POST', headers: { 'content-type': 'application/json' }, body },
    render: { method: 'POST', headers: { 'content-type': RENDER_REQUEST_CONTENT_TYPE, [RENDER_SIGNATURE_HEADER]: renderSignature }, body: renderBody },
  }

  // Warm-up: fill every cache and let the JIT settle.
  if (!smoke) {
    for (const scenario of scenarios) wrk(scenario.url, 3, scripts[scenario.script])
  }

  const runs = new Map(scenarios.map((s) => [s.id, []]))
  for (let round = 1; round <= ROUNDS; round++) {
    for (const scenario of scenarios) {
      const result = smoke ? await smokeRound(scenario, requests[scenario.script] ?? { method: 'GET' }) : wrk(scenario.url, SECONDS, scripts[scenario.script])
      runs.get(scenario.id).push(result)
      log(`round ${round} #${scenario.id} ${scenario.name}: ${result.rps.toFixed(0)} req/s${smoke ? `, ${result.requests} answered, ${result.wrong} wrong` : ''}`)
    }
  }

  const nginxRps = median(runs.get(1).map((r) => r.rps))
  const bareRps = median(runs.get(2).map((r) => r.rps))
  const table = scenarios.map((scenario) => {
    const results = runs.get(scenario.id)
    const rps = median(results.map((r) => r.rps))
    return {
      scenario: scenario.id,
      name: scenario.name,
      rps: Math.round(rps),
      // The spread over the rounds: this machine's neighbours move a round's figure by a fifth or more.
      rps_min: Math.round(Math.min(...results.map((r) => r.rps))),
      rps_max: Math.round(Math.max(...results.map((r) => r.rps))),
      p50_ms: median(results.map((r) => r.p50 ?? 0)),
      p99_ms: median(results.map((r) => r.p99 ?? 0)),
      non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
      socket_errors: results.reduce((sum, r) => sum + r.errors, 0),
      ...(smoke ? { requests: results.reduce((sum, r) => sum + r.requests, 0), wrong_answers: results.reduce((sum, r) => sum + r.wrong, 0) } : {}),
      vs_nginx: Number((rps / nginxRps).toFixed(3)),
      vs_bare_fastify: Number((rps / bareRps).toFixed(3)),
    }
  })

  // 8. Time to first byte: one cold request, then the median of 30 warm ones.
  const ttfbResults = {}
  for (const [label, system] of [['3_page_cache_hit', cached], ['4_page_cache_off', rendered]]) {
    const coldSystem = await startSystem(`cold ${label}`, system === cached ? { PAGE_CACHE: 'true' } : { PAGE_CACHE: 'false' })
    const cold = await ttfb(`${coldSystem.url}/`)
    const warm = []
    for (let i = 0; i < WARM_TTFB; i++) warm.push(await ttfb(`${coldSystem.url}/`))
    ttfbResults[label] = { cold_ms: Number(cold.toFixed(2)), warm_median_ms: Number(median(warm).toFixed(2)) }
    coldSystem.gateway.kill('SIGTERM')
    coldSystem.renderer.kill('SIGTERM')
  }

  // Gateway memory after many distinct URLs: bounded by its cache sizes.
  const memorySystem = await startSystem('memory', { PAGE_CACHE: 'true', PAGE_CACHE_MAX_ENTRIES: '1000' })
  const rssBefore = rssOf(memorySystem.gateway.pid)
  // Halfway the page cache (1000 entries) has long been full: a bounded gateway grows little in the second half.
  let rssHalfway = 0
  for (let i = 0; i < DISTINCT_URLS; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => fetch(`${memorySystem.url}/over-ons?v=${i + j}`).then((r) => r.arrayBuffer())))
    if (i + 50 === DISTINCT_URLS / 2) rssHalfway = rssOf(memorySystem.gateway.pid)
  }
  const rssAfter = rssOf(memorySystem.gateway.pid)

  const results = {
    date: new Date().toISOString(),
    mode: smoke ? 'smoke' : 'full',
    machine: { cores, node: process.version },
    settings: smoke ? { rounds: ROUNDS, requests: SMOKE_REQUESTS, concurrency: SMOKE_CONCURRENCY } : { rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS },
    scenarios: table,
    ttfb: ttfbResults,
    first_load_javascript: firstLoadJavaScript(root),
    gateway_memory: { distinct_urls: DISTINCT_URLS, page_cache_max_entries: 1000, rss_before_bytes: rssBefore, rss_halfway_bytes: rssHalfway, rss_after_bytes: rssAfter },
    targets: {
      scenario3_vs_bare_fastify: { target: 0.9, actual: table.find((row) => row.scenario === 3).vs_bare_fastify },
      scenario4_vs_nginx: { target: 0.04, actual: table.find((row) => row.scenario === 4).vs_nginx },
    },
    // What bounds each target: the same bytes under the same headers without the gateway, and the renderer without the gateway.
    bounds: {
      scenario3_vs_same_headers: Number((table.find((row) => row.scenario === 3).rps / table.find((row) => row.scenario === '2h').rps).toFixed(3)),
      renderer_alone_vs_nginx: table.find((row) => row.scenario === '4a').vs_nginx,
    },
  }
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`)
  console.log('| # | scenario | req/s | rounds min–max | p50 ms | p99 ms | vs nginx | vs bare Fastify |')
  console.log('|---|---|---|---|---|---|---|---|')
  for (const row of table) console.log(`| ${row.scenario} | ${row.name} | ${row.rps} | ${row.rps_min}–${row.rps_max} | ${row.p50_ms} | ${row.p99_ms} | ${row.vs_nginx} | ${row.vs_bare_fastify} |`)
  console.log(`TTFB: ${JSON.stringify(ttfbResults)}`)
  console.log(describeFirstLoad(results.first_load_javascript))
  console.log(`gateway RSS: ${(rssBefore / 1048576).toFixed(1)} MiB before, ${(rssHalfway / 1048576).toFixed(1)} MiB after ${DISTINCT_URLS / 2} distinct URLs, ${(rssAfter / 1048576).toFixed(1)} MiB after ${DISTINCT_URLS}`)
  stopAll()
}

main().catch((error) => {
  console.error(error)
  stopAll()
  process.exit(1)
})
