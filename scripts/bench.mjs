// `npm run bench`: the site against the physical limit, measured side by side
// in one run. Builds, starts the system on the embedded content, and loads it
// with wrk on loopback next to references serving the same bytes: nginx (a
// static file), a bare Fastify route, and for the renderer a bare
// renderToString of the same page; a fresh render beside a Nuxt 3 peer that
// renders the same home page from the same data (scripts/bench-nuxt.mjs).
// Every round runs every scenario, each next to its reference in a group of
// neighbours (the fresh renders' CPU per request counted too); within a group the
// scenarios take turns in BENCH_SLICES short slices, back and forth, so that
// a burst of the machine's neighbours falls on both sides of a pair (the
// order reversed every other round too). The ratios and the targets are
// medians of the per-round ratios, with their spread. Writes
// bench/results.json.
//
//   npm run bench                     BENCH_SECONDS (10) s per scenario and round, in BENCH_SLICES (5) slices
//                                     taking turns within its group, BENCH_ROUNDS (5) rounds; each group's
//                                     turns after BENCH_WARM_SECONDS (3) s of each scenario's load, uncounted
//   npm run bench -- --smoke          one round of a fixed number of requests per scenario, each
//                                     answer checked (run by npm test so it cannot rot); without the Nuxt peer
//   npm run bench -- --profile        CPU profiles of a fresh render (scripts/bench-profile.mjs):
//                                     .cpuprofile files and a self-time summary in bench/profiles/
//   npm run bench -- --js             only the first-load JavaScript of the build (no servers, no load)
//   --out=FILE                        write the results there instead of bench/results.json
//                                     (bench/results-partial.json for --only and --smoke)
//   --baseline-commit=REV             "no scenario slower" in the same run: the commit is built beside this
//                                     one (scripts/bench-baseline.mjs) and each product scenario runs next to
//                                     its twin on the commit's systems, paired in every slice
//   --baseline=FILE                   without --baseline-commit: compare each scenario's ratio to nginx with
//                                     an earlier results.json (by default bench/results.json, the last full
//                                     run); it moves with the machine from one hour to the next
//   --profile-dir=DIR                 write the profiles there instead of bench/profiles/
//   --only=4,4a,4b                    only these scenarios (and nginx, the ratios' reference), no time to
//                                     first byte, memory or compression levels; a target is computed
//                                     when all its scenarios ran; `nuxt` names the Nuxt peer
//   --no-build                        use dist/ as it is
//   (a full run also measures hits during a distributed miss flood: the hits' p99 over alone, and the
//   gateway's event-loop lag p99, scripts/hardening/miss-flood.mjs)
import { execSync } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describeFirstLoad, firstLoadJavaScript } from './first-load-js.mjs'
import { describeCompression, measureCompression } from './bench-compression.mjs'
import { SMOKE_CONCURRENCY, SMOKE_REQUESTS, CONNECTIONS, luaPost, median, runScenario, ttfb, wrk } from './bench-load.mjs'
import { cores, cpuMicrosOf, loadAverage, log, root, rssOf, startBareFastify, startNginx, startRenderToString, startSystem, stopAll, switchesOf, tempDir } from './bench-processes.mjs'
import { buildBaseline, resolveCommit } from './bench-baseline.mjs'
import { NUXT_VERSION, buildNuxtPeer, comparePageSizes, homePayloadOf, startNuxtPeer } from './bench-nuxt.mjs'
import { combineSlices, comparedWithBaseline, comparedWithTwins, spreadOf, targetResults } from './bench-results.mjs'
import { runProfile } from './bench-profile.mjs'
import { loadGatewayConfig } from '../gateway/config.ts'
import { dataJsonOf, payloadJson } from '../gateway/payload/payload-json.ts'
import { DEFAULT_SITE_HANDLE, RENDER_SIGNATURE_HEADER } from '../shared/constants.ts'
import { createOperations } from '../shared/operations.ts'
import { RENDER_REQUEST_CONTENT_TYPE } from '../shared/render-protocol/index.ts'

const smoke = process.argv.includes('--smoke')
const option = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)
const ROUNDS = smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 5)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
// Each timed run follows this many seconds of the same load, not counted: the steady state, not the wake-up.
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 3)
// A scenario's seconds in a round are cut in this many slices, the scenarios of its group taking turns.
// wrk runs whole seconds: never more slices than seconds, and the seconds reported are those timed.
const SLICES = smoke ? 1 : Math.max(1, Math.min(Number(process.env.BENCH_SLICES ?? 5), SECONDS))
const SLICE_SECONDS = Math.max(1, Math.round(SECONDS / SLICES))
const TIMED_SECONDS = SLICES * SLICE_SECONDS
const WARM_TTFB = 30
const DISTINCT_URLS = smoke ? 500 : 10_000
const only = option('only')?.split(',')
// The Nuxt peer (scripts/bench-nuxt.mjs): installed and built from the registry, so never in the smoke round of npm test.
const withNuxt = !smoke && (!only || only.includes('nuxt'))
// The scenarios that render a page on every request, each reported as a ratio to the Nuxt peer of the same round too.
const FRESH_RENDERS = new Set(['4', '4a', '4c', '4r', '5', 'nuxt'])
// A partial or smoke run never replaces the full run's results, the default baseline of the next full run.
const out = option('out') ?? join(root, only || smoke ? 'bench/results-partial.json' : 'bench/results.json')
// Every system's gateway and renderer share it, as `npm start` and the containers do: renders are signed and checked.
const RENDER_SECRET = randomBytes(32).toString('base64url')
/** What browsers send; the gateway answers brotli. */
const BROWSER_ENCODINGS = 'br, gzip'

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

/**
 * The render request the gateway sends for the home page once its data is cached: the renderer's work alone. Encoded
 * as the gateway of the tree at `tree` encodes it: since issue 48 with the tags of its data (shared/render-protocol/).
 */
async function homeRenderRequest(system, tree = root) {
  const tagsOf = (answer) => (answer.headers.get('cache-tag') ?? '').split(',').filter(Boolean)
  const primary = await fetch(`${system.url}/_payload.json?part=primary`)
  const deferred = await fetch(`${system.url}/_payload.json?part=deferred`)
  const tags = [...new Set([...tagsOf(primary), ...tagsOf(deferred)])]
  const protocolModule = join(tree, 'shared/render-protocol/index.ts')
  const withTags = existsSync(protocolModule)
  const { encodeRenderRequest: encode } = await import(pathToFileURL(withTags ? protocolModule : join(tree, 'shared/render-request.ts')).href)
  const [payloadText, deferredText] = [payloadJson(await primary.json()), dataJsonOf((await deferred.json()).data)]
  return withTags ? encode(payloadText, tags, deferredText) : encode(payloadText, deferredText)
}

/** The home page's uncompressed bytes as a system serves them. */
async function homeBytes(system) {
  return Buffer.from(await (await fetch(`${system.url}/`, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer())
}

/** Whether a text is the home page (its nonces differ from one answer to the next): its doctype and its <h1>. */
function homePageCheck(html) {
  const homeHeading = /<h1[^>]*>[\s\S]*?<\/h1>/.exec(html.toString('utf8'))?.[0]
  if (!homeHeading) throw new Error('the home page has no <h1>')
  return (text) => text.startsWith('<!DOCTYPE html>') && text.includes(homeHeading)
}

/**
 * The headers of the home page's render request signed as the gateway of the
 * tree at `tree` signs it (this one's, or a baseline commit's): since issue
 * 31 with a time, a nonce and the headers the renderer reads, before it over
 * method, path and body alone. Signed once and replayed by wrk, which the
 * bench's renderers admit (RENDER_REPLAY_CHECK=false, bench-processes.mjs).
 */
async function homeRenderSigner(tree = root) {
  // Since issue 48 the exchange is in shared/render-protocol/ and names its version; a baseline commit's tree may predate both.
  const protocolModule = join(tree, 'shared/render-protocol/index.ts')
  const { RenderSigner, contentDigest, RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION } = await import(pathToFileURL(existsSync(protocolModule) ? protocolModule : join(tree, 'shared/render-signature.ts')).href)
  const signer = new RenderSigner(RENDER_SECRET)
  const headers = { 'content-type': RENDER_REQUEST_CONTENT_TYPE, ...(RENDER_PROTOCOL_HEADER ? { [RENDER_PROTOCOL_HEADER]: RENDER_PROTOCOL_VERSION } : {}) }
  if (!contentDigest) return (body) => ({ ...headers, [RENDER_SIGNATURE_HEADER]: signer.sign('POST', '/', body) })
  return (body) => ({ ...headers, ...signer.signing('POST', '/', headers, contentDigest(body)) })
}

/**
 * Scenarios 4, 4c and 4a on a system whose page cache is off: the same in
 * the timed rounds and in the profile. The render request is signed as the
 * gateway signs it (`signHome`, from homeRenderSigner).
 */
function freshRenderScenarios(system, renderBody, luaDir, homePage, signHome, tag = '') {
  const renderHeaders = signHome(renderBody)
  const { 'content-type': _type, ...signing } = renderHeaders
  // The processes whose CPU a request costs (counted in the rounds, beside the requests per second).
  const both = () => [system.gateway.pid, system.renderer.pid]
  return [
    { id: 4, name: 'home, page cache off (rendered every time)', url: `${system.url}/`, answers: homePage, pids: both },
    { id: '4c', name: `home, page cache off, compressed: Accept-Encoding: ${BROWSER_ENCODINGS} (a browser's fresh page)`, url: `${system.url}/`, headers: { 'accept-encoding': BROWSER_ENCODINGS }, encoding: 'br', answers: homePage, pids: both },
    {
      id: '4a',
      name: "the renderer alone: the home page's render request (data handed over), rendered whole",
      url: `${system.rendererUrl}/`,
      script: luaPost(luaDir, `render${tag}`, RENDER_REQUEST_CONTENT_TYPE, renderBody, signing),
      request: { method: 'POST', headers: renderHeaders, body: renderBody },
      answers: homePage,
      pids: () => [system.renderer.pid],
    },
  ]
}

/** The four systems of the product: this build's, or (`distDir`, `label`) a baseline commit's. */
async function startProductSystems(distDir, label) {
  const named = (name) => (label ? `${name}, ${label}` : name)
  const options = { secret: RENDER_SECRET, ...(distDir ? { distDir } : {}) }
  return {
    cached: await startSystem(named('page cache'), { PAGE_CACHE: 'true' }, options),
    routed: await startSystem(named('page cache, hits routed'), { PAGE_CACHE: 'true', PAGE_CACHE_FAST_PATH: 'false' }, options),
    rendered: await startSystem(named('page cache off'), { PAGE_CACHE: 'false' }, options),
    uncached: await startSystem(named('no caches'), { PAGE_CACHE: 'false', QUERY_CACHE: 'false' }, options),
  }
}

/**
 * The product's scenarios on one set of systems, by id, each with what a
 * right answer is (checked in the smoke round); `tag` keeps two builds' wrk
 * scripts apart.
 */
async function productScenarios(systems, luaDir, tag = '', tree = root) {
  const { cached, routed, rendered, uncached } = systems
  const homePage = homePageCheck(Buffer.from(await (await fetch(`${cached.url}/`)).arrayBuffer()))
  const renderBody = await homeRenderRequest(cached, tree)
  const overOnsPayload = (text) => {
    const payload = JSON.parse(text)
    return payload.path === '/over-ons' && payload.status === 200
  }
  const serviceList = (text) => {
    const answer = JSON.parse(text)
    return answer.errors === undefined && answer.data?.entries?.length > 0
  }
  const apiBody = JSON.stringify({ query: createOperations(DEFAULT_SITE_HANDLE).ServiceList, variables: { site: 'havenborg' } })
  const [fresh, compressed, rendererAlone] = freshRenderScenarios(rendered, renderBody, luaDir, homePage, await homeRenderSigner(tree), tag)
  const scenarios = [
    { id: 3, name: 'home through the gateway, page cache hit', url: `${cached.url}/`, answers: homePage },
    { id: '3b', name: 'home, page cache hit through the full Fastify route (before the fast path)', url: `${routed.url}/`, answers: homePage },
    rendererAlone,
    fresh,
    compressed,
    { id: 5, name: 'home, everything uncached', url: `${uncached.url}/`, answers: homePage, pids: () => [uncached.gateway.pid, uncached.renderer.pid] },
    { id: 6, name: '/over-ons/_payload.json, cache hit', url: `${cached.url}/over-ons/_payload.json`, answers: overOnsPayload },
    {
      id: 7,
      name: 'POST /api allowlisted query, cache hit',
      url: `${cached.url}/api`,
      script: luaPost(luaDir, `api${tag}`, 'application/json', apiBody),
      request: { method: 'POST', headers: { 'content-type': 'application/json' }, body: apiBody },
      answers: serviceList,
    },
  ]
  return { renderBody, byId: new Map(scenarios.map((scenario) => [String(scenario.id), scenario])) }
}

/**
 * What the rounds do not measure: the cost of each compression level on a
 * fresh page's bytes, time to first byte, and the gateway's memory after
 * many distinct addresses.
 */
async function measureExtras(freshPage, rendered, cached) {
  // What compressing a fresh page costs at each level, on its real bytes; the gateway's levels (FRESH_BROTLI_QUALITY, FRESH_GZIP_LEVEL at their defaults) marked.
  const compression = await measureCompression(freshPage, { minMs: smoke ? 5 : 300, current: loadGatewayConfig({}).compression })

  // 8. Time to first byte: one cold request, then the median of 30 warm ones.
  const ttfbResults = {}
  for (const [label, system] of [['3_page_cache_hit', cached], ['4_page_cache_off', rendered]]) {
    const coldSystem = await startSystem(`cold ${label}`, system === cached ? { PAGE_CACHE: 'true' } : { PAGE_CACHE: 'false' }, { secret: RENDER_SECRET })
    const cold = await ttfb(`${coldSystem.url}/`)
    const warm = []
    for (let i = 0; i < WARM_TTFB; i++) warm.push(await ttfb(`${coldSystem.url}/`))
    ttfbResults[label] = { cold_ms: Number(cold.toFixed(2)), warm_median_ms: Number(median(warm).toFixed(2)) }
    coldSystem.gateway.kill('SIGTERM')
    coldSystem.renderer.kill('SIGTERM')
  }

  // Gateway memory after many distinct URLs: bounded by its cache sizes. Addresses that differ only in a parameter
  // the route does not read share one page-cache entry (issue 31), so this is what a stranger's flood of new
  // addresses costs, not a cache filling up.
  const memorySystem = await startSystem('memory', { PAGE_CACHE: 'true', PAGE_CACHE_MAX_ENTRIES: '1000' }, { secret: RENDER_SECRET })
  const rssBefore = rssOf(memorySystem.gateway.pid)
  // Halfway the page cache (1000 entries) has long been full: a bounded gateway grows little in the second half.
  let rssHalfway = 0
  for (let i = 0; i < DISTINCT_URLS; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => fetch(`${memorySystem.url}/over-ons?v=${i + j}`).then((r) => r.arrayBuffer())))
    if (i + 50 === DISTINCT_URLS / 2) rssHalfway = rssOf(memorySystem.gateway.pid)
  }
  const rssAfter = rssOf(memorySystem.gateway.pid)

  // Hits during a distributed miss flood (issue 41): a visitor's p99 on a cached page during the flood over alone, in the
  // same run, and the gateway's event-loop lag p99 (scripts/hardening/miss-flood.mjs). Not in the smoke round.
  // Imported here: its kit's exit handlers belong to a run that uses it.
  const flood = smoke ? undefined : await (await import('./hardening/miss-flood.mjs')).measureMissFlood()
  const hitsDuringMissFlood = flood && {
    name: 'hits during a distributed miss flood',
    p99_ratio: flood.p99Ratio,
    hits_p99_ms: { alone: flood.alone.p99Ms, during_flood: flood.duringFlood.p99Ms },
    event_loop_lag_p99_ms: { alone: flood.alone.loopLagP99Ms, during_flood: flood.duringFlood.loopLagP99Ms },
    flood: flood.flood,
  }

  return {
    ...(hitsDuringMissFlood ? { hits_during_miss_flood: hitsDuringMissFlood } : {}),
    compression,
    ttfb: ttfbResults,
    gateway_memory: { distinct_urls: DISTINCT_URLS, page_cache_max_entries: 1000, rss_before_bytes: rssBefore, rss_halfway_bytes: rssHalfway, rss_after_bytes: rssAfter },
  }
}

async function main() {
  if (!process.argv.includes('--no-build')) execSync('node scripts/build.mjs', { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  if (process.argv.includes('--scale')) {
    // 1×, 10× and 100× content side by side (scripts/bench-scale.mjs).
    await import('./bench-scale.mjs')
    return
  }
  if (process.argv.includes('--saves')) {
    // What each kind of an editor's save costs in renders and CMS calls (scripts/bench-saves.mjs).
    await import('./bench-saves.mjs')
    return
  }
  if (process.argv.includes('--js')) {
    console.log(describeFirstLoad(firstLoadJavaScript(root)))
    return
  }
  ensureTools()
  const luaDir = tempDir('bench-wrk-')
  if (smoke) log('the Nuxt peer is left out of the smoke round: installing and building it takes a minute or more (npm run bench -- --only=4,nuxt runs it)')
  // Built first: a build that fails stops the run before its servers start.
  const nuxtEntry = withNuxt && !process.argv.includes('--profile') ? buildNuxtPeer() : undefined

  if (process.argv.includes('--profile')) {
    await runProfile({
      smoke,
      secret: RENDER_SECRET,
      dir: option('profile-dir') ?? join(root, 'bench/profiles'),
      scenariosOf: async (system) => freshRenderScenarios(system, await homeRenderRequest(system), luaDir, homePageCheck(await homeBytes(system)), await homeRenderSigner()),
    })
    stopAll()
    return
  }

  const baselineFile = option('baseline') ?? join(root, 'bench/results.json')
  const baseline = existsSync(baselineFile) ? JSON.parse(readFileSync(baselineFile, 'utf8')) : undefined
  const baselineCommit = option('baseline-commit') ? resolveCommit(option('baseline-commit')) : undefined
  const baselineDist = baselineCommit ? buildBaseline(baselineCommit) : undefined
  const loadAtStart = loadAverage()

  const systems = await startProductSystems()
  const { cached, rendered } = systems
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
  const product = await productScenarios(systems, luaDir)
  // Taken now: after the rounds, a kept-alive connection to the gateway may have timed out. The second answer: a
  // system's first render has no deferred data at hand and streams it in (24,885 bytes against 23,736 since).
  await homeBytes(rendered)
  const freshPage = await homeBytes(rendered)
  const renderToString = await startRenderToString(product.renderBody)
  // The Nuxt peer, on the home page's payload as the gateway serves it; its page beside this site's, which it should match within 10 %.
  const nuxt = nuxtEntry && (await startNuxtPeer(nuxtEntry, await homePayloadOf(cached)))
  const nuxtUrl = nuxt?.url
  const nuxtPeer = nuxtUrl && { version: NUXT_VERSION, ...comparePageSizes((await (await fetch(nuxtUrl)).arrayBuffer()).byteLength, freshPage.length) }
  // The baseline commit's twin of each product scenario, on its own systems.
  const twins = new Map()
  if (baselineDist) {
    const { byId } = await productScenarios(await startProductSystems(baselineDist, `baseline ${baselineCommit}`), luaDir, '-baseline', dirname(baselineDist))
    for (const [id, scenario] of byId) twins.set(id, { ...scenario, id: `${id}@base`, twinOf: scenario.id, name: `${scenario.name} [baseline ${baselineCommit}]` })
  }

  // What a right answer is, checked in the smoke round: the same bytes as the references serve.
  const sameBytes = (text) => text === html.toString('utf8')
  const of = (id) => [product.byId.get(id), ...(twins.has(id) ? [twins.get(id)] : [])]
  // Groups of neighbours: each target's scenarios in one group, taking turns slice by slice (each product scenario beside its twin).
  let groups = [
    [
      { id: 1, name: 'nginx static file (reference)', url: nginx, answers: sameBytes },
      { id: 2, name: 'bare Fastify, same bytes (reference)', url: bare, answers: sameBytes },
      { id: '2h', name: 'bare Fastify, same bytes under the headers of a cached page (reference)', url: bareWithHeaders, answers: sameBytes },
      ...of('3'),
      ...of('3b'),
    ],
    [
      { id: '4r', name: 'ceiling of 4a: renderToString of the same page (same element tree and props) on a bare Fastify route', url: renderToString, answers: product.byId.get('4').answers },
      ...of('4a'),
      { id: '4b', name: 'floor of 4: two bare Fastify hops (undici between), no work', url: hops, answers: sameBytes },
      ...of('4'),
      ...of('4c'),
      ...(nuxtUrl ? [{ id: 'nuxt', name: `the Nuxt ${NUXT_VERSION} peer: the same home page from the same data, rendered on every request (peer)`, url: nuxtUrl, answers: product.byId.get('4').answers, pids: () => [nuxt.child.pid] }] : []),
    ],
    [...of('5'), ...of('6'), ...of('7')],
  ]
  if (only) groups = groups.map((group) => group.filter((scenario) => scenario.id === 1 || only.includes(String(scenario.twinOf ?? scenario.id)))).filter((group) => group.length > 0)
  const scenarios = groups.flat()

  // Warm-up: fill every cache and let the JIT settle.
  if (!smoke) {
    for (const scenario of scenarios) await runScenario(scenario, { smoke, seconds: 3 })
  }

  const runs = new Map(scenarios.map((s) => [String(s.id), []]))
  // CPU microseconds its servers have used (all their threads): per request, a measure that a loaded machine moves
  // less than requests per second, where a system of two processes gets two shares of a contended core, the peer one.
  const cpuOf = (scenario) => scenario.pids?.().reduce((sum, pid) => sum + cpuMicrosOf(pid).process, 0)
  // The first server's alone (the gateway, where a scenario has both services): its own CPU per page, which the core's
  // sharing between two processes does not move as it moves 1/#4 - 1/#4a.
  const firstCpuOf = (scenario) => (scenario.pids && scenario.pids().length > 1 ? cpuMicrosOf(scenario.pids()[0]).process : undefined)
  // How often the second (the renderer) was preempted: by the gateway woken on the same core, mostly (scripts/bench-interleave.mjs).
  const secondPreemptedOf = (scenario) => (scenario.pids && scenario.pids().length > 1 ? switchesOf(scenario.pids()[1]).preempted : undefined)
  const reversed = (list) => [...list].reverse()
  for (let round = 1; round <= ROUNDS; round++) {
    const forward = round % 2 === 1
    for (const group of forward ? groups : reversed(groups)) {
      // Uncounted: a server idle while the other groups ran is slow for its first seconds (docs/performance-history.md, issue 17).
      if (!smoke && WARM_SECONDS > 0) for (const scenario of forward ? group : reversed(group)) await runScenario(scenario, { smoke, seconds: WARM_SECONDS })
      const slices = new Map(group.map((scenario) => [String(scenario.id), []]))
      for (let slice = 0; slice < SLICES; slice++) {
        // Back and forth: the first of the group in one slice is the last in the next.
        for (const scenario of forward === (slice % 2 === 0) ? group : reversed(group)) {
          const load1 = loadAverage()
          const cpuBefore = cpuOf(scenario)
          const firstBefore = firstCpuOf(scenario)
          const preemptedBefore = secondPreemptedOf(scenario)
          const result = await runScenario(scenario, { smoke, seconds: SLICE_SECONDS })
          slices.get(String(scenario.id)).push({
            ...result,
            load1,
            ...(cpuBefore === undefined ? {} : { cpuUs: cpuOf(scenario) - cpuBefore }),
            ...(firstBefore === undefined ? {} : { gatewayCpuUs: firstCpuOf(scenario) - firstBefore }),
            ...(preemptedBefore === undefined ? {} : { rendererPreempted: secondPreemptedOf(scenario) - preemptedBefore }),
          })
        }
      }
      for (const scenario of group) {
        const result = combineSlices(slices.get(String(scenario.id)))
        runs.get(String(scenario.id)).push(result)
        log(`round ${round} #${scenario.id} ${scenario.name}: ${result.rps.toFixed(0)} req/s, load ${result.load1}${smoke ? `, ${result.requests} answered, ${result.wrong} wrong` : ''}`)
      }
    }
  }

  // Every round's requests per second by scenario id: the ratios are taken within a round.
  const rpsByRound = Array.from({ length: ROUNDS }, (_, i) => Object.fromEntries([...runs.entries()].map(([id, results]) => [id, results[i].rps])))
  const perRound = (id, reference) => spreadOf(rpsByRound.map((r) => r[id] / r[reference]))
  const nuxtRatio = ({ value, min, max }) => ({ vs_nuxt: value, vs_nuxt_min: min, vs_nuxt_max: max })
  // The peer's CPU per request over a scenario's, round by round: above 1, a page costs less CPU than Nuxt's.
  const cpuPerRequest = (r) => r.cpuUs / r.requests
  const nuxtCpu = runs.get('nuxt')?.map(cpuPerRequest)
  const table = scenarios.map((scenario) => {
    const id = String(scenario.id)
    const results = runs.get(id)
    const vsNginx = perRound(id, '1')
    return {
      scenario: scenario.id,
      name: scenario.name,
      ...(scenario.twinOf === undefined ? {} : { twin_of: scenario.twinOf }),
      rps: Math.round(median(results.map((r) => r.rps))),
      // The spread over the rounds: this machine's neighbours move a round's figure by a fifth or more.
      rps_min: Math.round(Math.min(...results.map((r) => r.rps))),
      rps_max: Math.round(Math.max(...results.map((r) => r.rps))),
      p50_ms: Number(median(results.map((r) => r.p50 ?? 0)).toFixed(2)),
      p99_ms: Number(median(results.map((r) => r.p99 ?? 0)).toFixed(2)),
      non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
      socket_errors: results.reduce((sum, r) => sum + r.errors, 0),
      ...(smoke ? { requests: results.reduce((sum, r) => sum + r.requests, 0), wrong_answers: results.reduce((sum, r) => sum + r.wrong, 0) } : {}),
      // Medians of the per-round ratios, and their spread.
      vs_nginx: vsNginx.value,
      vs_nginx_min: vsNginx.min,
      vs_nginx_max: vsNginx.max,
      ...(runs.has('2') ? { vs_bare_fastify: perRound(id, '2').value } : {}),
      ...(runs.has('nuxt') && FRESH_RENDERS.has(String(scenario.twinOf ?? scenario.id)) ? nuxtRatio(perRound(id, 'nuxt')) : {}),
      ...(results[0].cpuUs === undefined ? {} : { cpu_us_per_request: Math.round(median(results.map(cpuPerRequest))) }),
      ...(results[0].gatewayCpuUs === undefined ? {} : { gateway_cpu_us_per_request: Math.round(median(results.map((r) => r.gatewayCpuUs / r.requests))) }),
      ...(results[0].rendererPreempted === undefined ? {} : { renderer_preempted_per_request: Number(median(results.map((r) => r.rendererPreempted / r.requests)).toFixed(2)) }),
      ...(results[0].cpuUs !== undefined && nuxtCpu && FRESH_RENDERS.has(String(scenario.twinOf ?? scenario.id)) ? { cpu_vs_nuxt: spreadOf(results.map((r, i) => nuxtCpu[i] / cpuPerRequest(r))).value } : {}),
      load1: Number(median(results.map((r) => r.load1)).toFixed(2)),
    }
  })
  const targets = targetResults(rpsByRound)

  const extras = only ? undefined : await measureExtras(freshPage, rendered, cached)
  const results = {
    date: new Date().toISOString(),
    // A partial run (--only) is never the baseline of "no scenario slower".
    mode: smoke ? 'smoke' : only ? 'partial' : 'full',
    machine: { cores, node: process.version, load_average_1min: { start: loadAtStart, end: loadAverage() } },
    settings: {
      ...(smoke ? { rounds: ROUNDS, requests: SMOKE_REQUESTS, concurrency: SMOKE_CONCURRENCY } : { rounds: ROUNDS, seconds: TIMED_SECONDS, slices: SLICES, slice_seconds: SLICE_SECONDS, warm_seconds: WARM_SECONDS, connections: CONNECTIONS }),
      ...(baselineCommit ? { baseline_commit: baselineCommit } : {}),
    },
    scenarios: table,
    ...(nuxtPeer ? { nuxt_peer: nuxtPeer } : {}),
    targets,
    // Twins ran in this run, in the smoke round too (there only to show the comparison works); an earlier run is compared only with a full one.
    no_scenario_slower:
      twins.size > 0
        ? comparedWithTwins(rpsByRound, scenarios.filter((scenario) => scenario.twinOf !== undefined), baselineCommit)
        : smoke
          ? { baseline: null, met: null, note: 'not compared in a smoke run' }
          : comparedWithBaseline(table, baseline, baselineFile),
    ...extras,
    first_load_javascript: firstLoadJavaScript(root),
  }
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`)
  console.log('| # | scenario | req/s | rounds min–max | p50 ms | p99 ms | vs nginx (rounds min–max) | vs Nuxt (rounds min–max) | vs bare Fastify | load |')
  console.log('|---|---|---|---|---|---|---|---|---|---|')
  const vsNuxt = (row) => (row.vs_nuxt === undefined ? '' : `${row.vs_nuxt} (${row.vs_nuxt_min}–${row.vs_nuxt_max})${row.cpu_vs_nuxt === undefined ? '' : `; CPU per page ${row.cpu_vs_nuxt}`}`)
  for (const row of table) console.log(`| ${row.scenario} | ${row.name} | ${row.rps} | ${row.rps_min}–${row.rps_max} | ${row.p50_ms} | ${row.p99_ms} | ${row.vs_nginx} (${row.vs_nginx_min}–${row.vs_nginx_max}) | ${vsNuxt(row)} | ${row.vs_bare_fastify ?? ''} | ${row.load1} |`)
  const counted = table.filter((row) => row.cpu_us_per_request !== undefined)
  if (counted.length > 0) console.log(`CPU µs per request, the servers' (median of the rounds): ${counted.map((row) => `#${row.scenario} ${row.cpu_us_per_request}${row.gateway_cpu_us_per_request === undefined ? '' : ` (the gateway's ${row.gateway_cpu_us_per_request}${row.renderer_preempted_per_request === undefined ? '' : `; the renderer preempted ${row.renderer_preempted_per_request} times a page`})`}`).join(', ')}`)
  if (nuxtPeer) console.log(`the Nuxt peer's page: ${nuxtPeer.nuxt_page_bytes} bytes, this site's ${nuxtPeer.site_page_bytes} (${nuxtPeer.ratio}×)`)
  console.log('')
  console.log('| target | median of the rounds | required | rounds min–max | met |')
  console.log('|---|---|---|---|---|')
  for (const [key, target] of Object.entries(targets)) console.log(`| ${key} | ${target.value} | ${target.comparison} ${target.required} | ${target.spread[0]}–${target.spread[1]} | ${target.met ? 'yes' : 'no'} |`)
  if (targets.gateway_fresh_render_vs_hop_floor) console.log(`gateway fresh render: ${JSON.stringify(targets.gateway_fresh_render_vs_hop_floor.details)}`)
  const slower = results.no_scenario_slower
  const verdict = slower.met ? 'met' : `not met: ${(slower.slower ?? []).join(', ')}`
  if (slower.baseline?.commit) {
    console.log(`no scenario slower than ${slower.baseline.commit}, in the same run: ${verdict}`)
    for (const row of slower.scenarios) console.log(`  #${row.scenario}: ${row.vs_baseline} of the baseline (rounds ${row.rounds_min}–${row.rounds_max})`)
  } else {
    console.log(slower.baseline ? `no scenario slower than ${slower.baseline.file} (${slower.baseline.date}): ${verdict}` : `no scenario slower: ${slower.note}`)
  }
  if (extras) {
    const { rss_before_bytes: before, rss_halfway_bytes: halfway, rss_after_bytes: after } = extras.gateway_memory
    const flood = extras.hits_during_miss_flood
    if (flood) console.log(`hits during a distributed miss flood: p99 ${flood.p99_ratio}× of alone (${flood.hits_p99_ms.during_flood} / ${flood.hits_p99_ms.alone} ms), event-loop lag p99 ${flood.event_loop_lag_p99_ms.during_flood} ms (alone ${flood.event_loop_lag_p99_ms.alone} ms)`)
    console.log(describeCompression(extras.compression))
    console.log(`TTFB: ${JSON.stringify(extras.ttfb)}`)
    console.log(`gateway RSS: ${(before / 1048576).toFixed(1)} MiB before, ${(halfway / 1048576).toFixed(1)} MiB after ${DISTINCT_URLS / 2} distinct URLs, ${(after / 1048576).toFixed(1)} MiB after ${DISTINCT_URLS}`)
  }
  console.log(describeFirstLoad(results.first_load_javascript))
  stopAll()
}

main().catch((error) => {
  console.error(error)
  stopAll()
  process.exit(1)
})
