// npm run test:containers: the site on Docker Swarm, as docker-stack.yml runs it, under load while its
// configuration and then its image change; then which network reaches which port. Needs root (or sudo) and
// minutes: not part of `npm test`. Steps:
//   1. Debian's docker.io, docker-compose and debootstrap (installed when missing), dockerd (started when not
//      running), the base images node:26-trixie-slim, redis:7-alpine and nginx:1.27-alpine (pulled when missing;
//      where Docker Hub cannot be reached, BASE_IMAGES_SCRIPT names a script of yours that builds them);
//   2. the image under two tags (the second differs by a label), Swarm mode, the secrets' files, a throwaway TLS
//      certificate in deploy/tls/ when there is none, scripts/swarm-preflight.sh;
//   3. `docker stack deploy` with DEMO_SITE=true (the embedded content on https://localhost), timed until every
//      task is healthy and nginx serves a page over https; the readiness check (scripts/readiness.mjs) on the scrape
//      network; the front door (scripts/containers-front-door.mjs): https on 127.0.0.1 and [::1] (LB_TLS_PORT,
//      3443), HSTS, HTTP/2, http (LB_PORT, 3000) redirected but for the ACME challenge, TLS 1.0 and 1.1 refused;
//   4. load through nginx over https (at least LOAD_REQUESTS requests, CONCURRENCY at a time, on loopback) while
//      `docker service update --env-add LOG_LEVEL=debug` rolls the gateways, then the renderers; then while
//      a deploy with the second tag rolls both, and while a broken configuration (a secret file that is not
//      there) is rolled back: every answer that is not 200, and every network error, is a failure;
//      Then while one gateway task is stopped (p99 behind nginx), and with every renderer stopped (stored
//      pages only, served STALE: their p99);
//      Issue 38's: a purge after the tag sets expired (content checked after every purge), a release whose
//      renderer fails at start (then both rolled back together), nginx reloaded / replaced / killed, a renderer
//      paused, a gateway cut from `internal` and connected again, Redis killed with SIGKILL. Each counts failed
//      pages, asset 404s (every asset a page names is fetched), the slowest request and the requests a second;
//   5. from a throwaway container on each network: which of lb:80, gateway:3000, gateway:3100, renderer:3001
//      and redis:6379 answer.
// Exit code 0 when no request failed, no asset was a 404, every purge's change was served, the front door is as shipped, and the reachability is as docs/operations.md says. KEEP_STACK=1 leaves it running.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { setTimeout as pause } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { Agent, fetch } from 'undici'
import { checkFrontDoor } from './containers-front-door.mjs'
import { ensureBaseImages, ensureEngine, ensureTools } from './containers-setup.mjs'
import { underLoad as loadThrough } from './containers-load.mjs'
import { checkReach, printTable, reachability } from './containers-reach.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const DOCKER = '/usr/bin/docker'
const STACK = process.env.STACK_NAME ?? 'site'
const LB_PORT = Number(process.env.LB_PORT ?? 3000)
const LB_TLS_PORT = Number(process.env.LB_TLS_PORT ?? 3443)
/** The site as visitors reach it: over https (port 80 only redirects), the throwaway certificate not checked. */
const SITE = `https://127.0.0.1:${LB_TLS_PORT}`
const TLS_AGENT = new Agent({ connect: { rejectUnauthorized: false } })
const LOAD_REQUESTS = Number(process.env.LOAD_REQUESTS ?? 5000)
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8)
const TAG_A = 'containers-test-a'
const TAG_B = 'containers-test-b'
/** Which loads run after the deploy (all by default), e.g. SCENARIOS=steady,redis-kill: see the list below. */
const SCENARIOS = new Set(
  (process.env.SCENARIOS ?? 'steady,config,image,rollback,gateway,renderers,purge-expired,failed-release,nginx,renderer-pause,network-cut,redis-kill').split(','),
)
/** Requests of the load with every renderer stopped: before fail-fast, each one could wait out a connect timeout. */
const OUTAGE_REQUESTS = Number(process.env.OUTAGE_REQUESTS ?? 2000)
/** The gateways' page TTL in the stack (PAGE_CACHE_TTL_MS, its default): the outage's load waits it out. */
const PAGE_TTL_MS = Number(process.env.PAGE_TTL_MS ?? 30_000)

const log = (...parts) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...parts)

function docker(args, options = {}) {
  return execFileSync(DOCKER, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options }).trim()
}
function dockerOk(args) {
  return spawnSync(DOCKER, args, { stdio: 'ignore' }).status === 0
}

// 1. Tools, engine, base images: scripts/containers-setup.mjs.

// 2. Images, Swarm, secrets.
function buildImages() {
  log(`building havenborg-website:${TAG_A}`)
  docker(['build', '-q', '-t', `havenborg-website:${TAG_A}`, '.'])
  // The same build with a label: another image ID, so a deploy with this tag replaces every task.
  docker(['build', '-q', '--label', `containers-test=${Date.now()}`, '-t', `havenborg-website:${TAG_B}`, '.'])
}

function ensureSwarm() {
  if (docker(['info', '--format', '{{.Swarm.LocalNodeState}}']) !== 'active') {
    log('docker swarm init --advertise-addr 127.0.0.1')
    docker(['swarm', 'init', '--advertise-addr', '127.0.0.1'])
  }
}

function ensureSecretFiles() {
  const dir = join(ROOT, 'deploy/secrets')
  mkdirSync(dir, { recursive: true })
  for (const name of ['render_secret', 'purge_secret']) {
    const path = join(dir, name)
    if (!existsSync(path)) writeFileSync(path, `${randomBytes(24).toString('hex')}\n`, { mode: 0o644 })
  }
}

async function removeStack() {
  if (!docker(['stack', 'ls', '--format', '{{.Name}}']).split('\n').includes(STACK)) return
  log(`docker stack rm ${STACK}`)
  // Docker removes the services first, and refuses to remove a network whose tasks are still stopping (exit 1): the
  // removal is asked again every 5 s until the stack's networks and containers are gone.
  dockerOk(['stack', 'rm', STACK])
  for (let waited = 0; docker(['network', 'ls', '--filter', `label=com.docker.stack.namespace=${STACK}`, '-q']) !== '' || docker(['ps', '-aq', '--filter', `label=com.docker.stack.namespace=${STACK}`]) !== ''; waited += 500) {
    if (waited >= 120_000) throw new Error(`the stack ${STACK} was not removed within 2 minutes`)
    await pause(500)
    if (waited % 5000 === 4500) dockerOk(['stack', 'rm', STACK])
  }
}

/** A throwaway certificate for localhost, 127.0.0.1 and ::1 in deploy/tls/ (the stack's TLS secrets), unless there is one. */
function ensureTlsFiles() {
  const dir = join(ROOT, 'deploy/tls')
  if (existsSync(join(dir, 'certificate.pem')) && existsSync(join(dir, 'key.pem'))) return
  mkdirSync(dir, { recursive: true })
  log('openssl req -x509: a throwaway certificate in deploy/tls/')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '30', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'certificate.pem')], { stdio: ['ignore', 'ignore', 'inherit'] })
}

// 3. Deploy and wait for health.
const EXPECTED_TASKS = { lb: 1, gateway: 2, renderer: 3, redis: 1 }
/** The embedded content on localhost: a demo, which the production image serves only with DEMO_SITE=true. */
const DEPLOY_ENV = { DEMO_SITE: 'true', SITE_URL: 'https://localhost', LB_PORT: String(LB_PORT), LB_TLS_PORT: String(LB_TLS_PORT) }

function deploy(tag) {
  docker(['stack', 'deploy', '-c', 'docker-stack.yml', STACK], { env: { ...process.env, ...DEPLOY_ENV, IMAGE_TAG: tag } })
}

function healthyTasks() {
  const lines = docker(['ps', '--filter', `label=com.docker.stack.namespace=${STACK}`, '--format', '{{.Label "com.docker.swarm.service.name"}} {{.Status}}'])
  const counts = {}
  for (const line of lines.split('\n').filter(Boolean)) {
    const [service = '', ...status] = line.split(' ')
    if (status.join(' ').includes('(healthy)')) counts[service.slice(STACK.length + 1)] = (counts[service.slice(STACK.length + 1)] ?? 0) + 1
  }
  return counts
}

async function waitHealthy(deadlineMs) {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    const counts = healthyTasks()
    const allHealthy = Object.entries(EXPECTED_TASKS).every(([service, count]) => (counts[service] ?? 0) >= count)
    if (allHealthy) {
      const home = await fetch(`${SITE}/`, { dispatcher: TLS_AGENT }).catch(() => undefined)
      if (home?.status === 200) return
    }
    if (Date.now() > deadline) throw new Error(`not healthy in time: ${JSON.stringify(counts)}`)
    await pause(250)
  }
}

// 4. Load while something changes.
const underLoad = (label, paths, change, requests = LOAD_REQUESTS) =>
  loadThrough({ origin: SITE, connect: { rejectUnauthorized: false }, concurrency: CONCURRENCY, log }, label, paths, change, requests)

async function sitePaths() {
  // /sitemap.xml is an index: the pages are in its children.
  const locs = async (path) => [...(await (await fetch(`${SITE}${path}`, { dispatcher: TLS_AGENT })).text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => new URL(match[1] ?? '/').pathname)
  const paths = []
  for (const child of await locs('/sitemap.xml')) paths.push(...(await locs(child)))
  return paths.length > 0 ? paths.slice(0, 40) : ['/']
}

function run(command, args, env = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] })
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))))
  })
}

/** Resolves once the service has rolled back (its update failed); throws if the update went through. */
async function waitRolledBack(service) {
  for (;;) {
    const state = docker(['service', 'inspect', `${STACK}_${service}`, '--format', '{{if .UpdateStatus}}{{.UpdateStatus.State}}{{end}}'])
    if (state === 'rollback_completed') return
    if (state === 'completed') throw new Error(`${service}: the broken update went through`)
    await pause(500)
  }
}

async function waitUpdated(services, tag) {
  for (;;) {
    const states = services.map((service) => docker(['service', 'inspect', `${STACK}_${service}`, '--format', '{{if .UpdateStatus}}{{.UpdateStatus.State}}{{end}}']))
    if (states.some((state) => state.startsWith('rollback') || state === 'paused')) throw new Error(`update failed: ${states.join(', ')}`)
    const images = docker(['ps', '--filter', `label=com.docker.stack.namespace=${STACK}`, '--format', '{{.Image}} {{.Status}}'])
      .split('\n')
      .filter((line) => line.startsWith('havenborg-website:'))
    const done = states.every((state) => state === 'completed') && images.every((line) => line.startsWith(`havenborg-website:${tag} `) && line.includes('(healthy)'))
    if (done) return
    await pause(500)
  }
}

// The run.
ensureTools()
await ensureEngine()
ensureBaseImages()
ensureSwarm()
ensureSecretFiles()
ensureTlsFiles()
buildImages()
await removeStack()
// The deploy's own pre-flight check, as docs/operations.md runs it (a demo: DEMO_SITE=true).
execFileSync('sh', ['scripts/swarm-preflight.sh', 'host'], { cwd: ROOT, env: { ...process.env, ...DEPLOY_ENV }, stdio: 'inherit' })

log(`docker stack deploy -c docker-stack.yml ${STACK} (image ${TAG_A})`)
const deployedAt = Date.now()
deploy(TAG_A)
await waitHealthy(180_000)
const healthySeconds = (Date.now() - deployedAt) / 1000
log(`all ${Object.values(EXPECTED_TASKS).reduce((a, b) => a + b)} tasks healthy and a page served ${healthySeconds.toFixed(1)} s after stack deploy`)

// The readiness check of docs/operations.md, from a throwaway container on the scrape network.
log(`readiness: ${docker(['run', '--rm', '--network', `${STACK}_scrape`, '--entrypoint', 'node', `havenborg-website:${TAG_A}`, 'scripts/readiness.mjs']).split('\n').at(-1)}`)
// The front door: https on IPv4 and IPv6, HSTS, HTTP/2, the redirect from http, TLS below 1.2 refused.
const frontDoor = await checkFrontDoor({ httpPort: LB_PORT, tlsPort: LB_TLS_PORT })
log(`front door: ${JSON.stringify(frontDoor)}`)

const paths = await sitePaths()
const results = []
if (SCENARIOS.has('config')) results.push(
  await underLoad('configuration change (LOG_LEVEL=debug on gateways, then renderers)', paths, async () => {
    await run(DOCKER, ['service', 'update', '--quiet', '--env-add', 'LOG_LEVEL=debug', `${STACK}_gateway`])
    await run(DOCKER, ['service', 'update', '--quiet', '--env-add', 'LOG_LEVEL=debug', `${STACK}_renderer`])
    await waitUpdated(['gateway', 'renderer'], TAG_A)
  }),
)
if (SCENARIOS.has('image')) results.push(
  await underLoad(`image change (stack deploy with ${TAG_B})`, paths, async () => {
    deploy(TAG_B)
    await waitUpdated(['gateway', 'renderer'], TAG_B)
  }),
)

if (SCENARIOS.has('rollback')) results.push(
  await underLoad('a broken configuration, rolled back (RENDER_SECRET_FILE of a missing file: exit code 2)', paths, async () => {
    // The update fails (its new task never becomes healthy), so the command's own exit code says nothing here.
    await run(DOCKER, ['service', 'update', '--quiet', '--env-add', 'RENDER_SECRET_FILE=/run/secrets/missing', `${STACK}_gateway`]).catch(() => {})
    await waitRolledBack('gateway')
  }),
)

// A gateway stops (as a node drain or a crash would stop it) while nginx sends it requests: Swarm starts a new
// task, and nginx must fail over to the other gateway in milliseconds, not wait out a connect timeout.
if (SCENARIOS.has('gateway')) results.push(
  await underLoad('a gateway stops (docker stop of one gateway task)', paths, async () => {
    const gateway = docker(['ps', '--filter', `label=com.docker.swarm.service.name=${STACK}_gateway`, '--format', '{{.ID}}']).split('\n')[0]
    if (!gateway) throw new Error('no gateway container')
    await run(DOCKER, ['stop', '--time', '10', gateway])
    await waitHealthy(120_000)
  }),
)

// Every renderer stopped: the pages the gateways stored are served STALE, and must come within milliseconds,
// not after a connect timeout per render attempt. Each page is first asked for often enough that both gateways
// hold it (the one started above began empty); the renderers come back afterwards.
// The warm-up stores every page in every gateway, asked directly from a throwaway container on `edge` (through
// nginx a page can come from one gateway every time). It is one client's uncached work: past its budget
// (CLIENT_WORK_BUDGET) a gateway answers 429 and stores nothing, so it follows Retry-After.
const WARM_EVERY_GATEWAY = (paths) => `
const dns = require('node:dns/promises')
const paths = ${JSON.stringify(paths)}
;(async () => {
  const gateways = (await dns.lookup('gateway', { all: true, family: 4 })).map(({ address }) => address)
  let stored = 0
  for (const address of gateways) for (const path of paths) {
    for (let tries = 0; tries < 60; tries++) {
      const response = await fetch('http://' + address + ':3000' + path)
      await response.arrayBuffer()
      if (response.headers.get('x-cache') === 'HIT') { stored++; break }
      if (response.status === 429) await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000))
    }
  }
  console.log(JSON.stringify({ gateways: gateways.length, stored }))
})()`
function warmEveryGateway(paths, tag) {
  const output = docker(['run', '--rm', '--network', `${STACK}_edge`, '--entrypoint', 'node', `havenborg-website:${tag}`, '-e', WARM_EVERY_GATEWAY(paths)])
  log(`warmed: ${output.split('\n').at(-1)} (pages stored, of ${paths.length} on each gateway)`)
}
if (SCENARIOS.has('renderers')) try {
  warmEveryGateway(paths, TAG_B)
  await run(DOCKER, ['service', 'scale', '--detach', `${STACK}_renderer=0`])
  while (docker(['ps', '--filter', `label=com.docker.swarm.service.name=${STACK}_renderer`, '--format', '{{.ID}}']) !== '') await pause(500)
  // Past the pages' TTL, so every page is stale and each request would have a renderer refresh it.
  log(`waiting ${PAGE_TTL_MS / 1000} s: the stored pages' TTL (PAGE_CACHE_TTL_MS)`)
  await pause(PAGE_TTL_MS + 1000)
  results.push(await underLoad('every renderer stopped (stored pages, served STALE)', paths, async () => {}, OUTAGE_REQUESTS))
} finally {
  await run(DOCKER, ['service', 'scale', '--detach', `${STACK}_renderer=${EXPECTED_TASKS.renderer}`])
  await waitHealthy(180_000)
}

// Issue 38's scenarios: what an operator meets besides rolls. Each runs under the same load and counts the same.
const containersOf = (service) => docker(['ps', '--filter', `label=com.docker.swarm.service.name=${STACK}_${service}`, '--format', '{{.ID}}']).split('\n').filter(Boolean)
const firstContainer = (service) => {
  const [id] = containersOf(service)
  if (!id) throw new Error(`no ${service} container`)
  return id
}
const ABOUT = '/over-ons'
/** The about page's entry: its page is tagged with it (a single that was found is not tagged with its section). */
const ABOUT_TAG = 'entry:102'
const titleOf = (html) => /<h1[^>]*>([^<]*)</.exec(html)?.[1] ?? ''

const editedGateways = new Set()
/** An editor saves the about page with a new title: the content file of every gateway's embedded CMS, which it reloads. */
async function retitleEverywhere(title) {
  const script = `const fs=require('node:fs');const f='/app/gateway/embedded-cms/content/site-pages.json';const d=JSON.parse(fs.readFileSync(f,'utf8'));for(const e of d.entries)if(e.id==='102')e.title=${JSON.stringify(title)};fs.writeFileSync(f,JSON.stringify(d,null,2))`
  editedGateways.clear()
  for (const id of containersOf('gateway')) {
    docker(['exec', '-u', '0', id, 'node', '-e', script])
    editedGateways.add(id)
  }
  await pause(1000) // the embedded CMS reloads its files 100 ms after they change
}

async function purgeAbout(hard) {
  const secret = (await import('node:fs')).readFileSync(join(ROOT, 'deploy/secrets/purge_secret'), 'utf8').trim()
  const response = await fetch(`${SITE}/api/purge`, {
    dispatcher: TLS_AGENT,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-purge-secret': secret },
    body: JSON.stringify({ tags: [ABOUT_TAG], hard }),
  })
  return { status: response.status, ...(await response.json().catch(() => ({}))) }
}

/**
 * The about page asked for through nginx for `windowMs` after a purge (one request at a time, so both gateways
 * answer in turn): how many answers still had another title, and when the last of them came.
 */
async function contentAfterPurge(expected, windowMs = 15_000) {
  const since = performance.now()
  let asked = 0
  let old = 0
  let lastOldMs = -1
  while (performance.now() - since < windowMs) {
    const response = await fetch(`${SITE}${ABOUT}`, { dispatcher: TLS_AGENT }).catch(() => undefined)
    const title = response ? titleOf(await response.text()) : ''
    asked++
    if (title !== expected) {
      old++
      lastOldMs = Math.round(performance.now() - since)
    }
    await pause(50)
  }
  // A gateway task replaced since the edit runs the image's content: its old title says nothing about the purge.
  const replaced = containersOf('gateway').some((id) => !editedGateways.has(id))
  const check = { expected, asked, old, lastOldMs, settled: lastOldMs < windowMs - 5000, ...(replaced ? { inconclusive: 'a gateway task was replaced since the edit' } : {}) }
  log(`after the purge: ${old} of ${asked} answers not "${expected}" in ${windowMs / 1000} s, the last at ${lastOldMs} ms${check.settled ? '' : ' (NOT SETTLED)'}${replaced ? ' (a gateway task was replaced since the edit)' : ''}`)
  return check
}

const contentChecks = []
if (SCENARIOS.has('purge-expired')) results.push(
  await underLoad(`purge after the tag sets expired (page TTL ${PAGE_TTL_MS / 1000} s)`, paths, async () => {
    await retitleEverywhere('Over Havenborg, eerste wijziging')
    log('purge (hard):', JSON.stringify(await purgeAbout(true)))
    contentChecks.push(await contentAfterPurge('Over Havenborg, eerste wijziging'))
    log(`waiting ${PAGE_TTL_MS / 1000 + 5} s: past the stored page's lifetime in Redis`)
    await pause(PAGE_TTL_MS + 5000)
    await retitleEverywhere('Over Havenborg, tweede wijziging')
    log('purge:', JSON.stringify(await purgeAbout(false)))
    contentChecks.push(await contentAfterPurge('Over Havenborg, tweede wijziging'))
  }),
)

/** A gateway's /readyz, asked inside its container on its scrape address (INTERNAL_HOST). */
function readyzOf(container) {
  const script = `const a=Object.values(require('node:os').networkInterfaces()).flat().find(e=>e.address.startsWith('10.232.3.'));fetch('http://'+a.address+':3100/readyz').then(r=>r.text()).then(t=>console.log(t),e=>console.log(JSON.stringify({error:String(e)})))`
  try {
    return JSON.parse(docker(['exec', container, 'node', '-e', script]).split('\n').at(-1) ?? '{}')
  } catch (error) {
    return { error: String(error.message ?? error) }
  }
}

// A release whose renderer exits at start (a configuration it refuses), of another build id than the last: the
// gateways roll forward, the renderers roll back, and the stack runs two builds until both are rolled back together.
const TAG_BAD = 'containers-test-bad-renderer'
if (SCENARIOS.has('failed-release')) {
  const dockerfile = `FROM havenborg-website:${TAG_B}\nUSER root\nRUN node -e "const f='/app/dist/build.json',b=JSON.parse(require('fs').readFileSync(f));b.id+='-bad';require('fs').writeFileSync(f,JSON.stringify(b))"\nUSER node\nENV RICH_TEXT_MEMO_MAX_BYTES=1\n`
  execFileSync(DOCKER, ['build', '-q', '-t', `havenborg-website:${TAG_BAD}`, '-'], { input: dockerfile, stdio: ['pipe', 'ignore', 'inherit'] })
  results.push(
    await underLoad('a release whose renderer fails at start (stack deploy; renderers roll back)', paths, async () => {
      deploy(TAG_BAD)
      await waitRolledBack('renderer')
      while (docker(['service', 'inspect', `${STACK}_gateway`, '--format', '{{if .UpdateStatus}}{{.UpdateStatus.State}}{{end}}']) !== 'completed') await pause(500)
      log('mixed stack: /readyz builds', JSON.stringify(readyzOf(firstContainer('gateway')).builds))
    }),
  )
  results.push(
    await underLoad(`both services rolled back together (stack deploy with ${TAG_B})`, paths, async () => {
      deploy(TAG_B)
      await waitUpdated(['gateway', 'renderer'], TAG_B)
      log('after: /readyz builds', JSON.stringify(readyzOf(firstContainer('gateway')).builds))
    }),
  )
}

// The front door: nginx's configuration reloaded in place, its task replaced, its task killed.
if (SCENARIOS.has('nginx')) {
  results.push(
    await underLoad('nginx -s reload in its task (a configuration change without a new task)', paths, async () => {
      await pause(2000)
      docker(['exec', firstContainer('lb'), 'nginx', '-s', 'reload'])
      await pause(3000)
    }),
  )
  results.push(
    await underLoad('nginx task replaced (docker service update --force)', paths, async () => {
      await run(DOCKER, ['service', 'update', '--quiet', '--force', `${STACK}_lb`])
      await waitHealthy(120_000)
    }),
  )
  results.push(
    await underLoad("nginx task killed (docker kill)", paths, async () => {
      const lb = firstContainer('lb')
      docker(['kill', lb])
      while (containersOf('lb').includes(lb)) await pause(100)
      await waitHealthy(120_000)
    }),
  )
}

// A hung renderer: paused for 15 s (Swarm's health check may replace it meanwhile).
if (SCENARIOS.has('renderer-pause')) results.push(
  await underLoad('a renderer paused for 15 s (docker pause)', paths, async () => {
    const renderer = firstContainer('renderer')
    docker(['pause', renderer])
    await pause(15_000)
    dockerOk(['unpause', renderer])
    await waitHealthy(120_000)
  }),
)

// A gateway cut from `internal` (renderers, Redis) for 15 s and connected again, under a new address there.
if (SCENARIOS.has('network-cut')) results.push(
  await underLoad('a gateway cut from internal for 15 s, then connected again', paths, async () => {
    const gateway = firstContainer('gateway')
    const network = `${STACK}_internal`
    const addressOn = () => docker(['inspect', gateway, '--format', `{{with index .NetworkSettings.Networks "${network}"}}{{.IPAddress}}{{end}}`])
    const before = addressOn()
    docker(['network', 'disconnect', '-f', network, gateway])
    await pause(15_000)
    docker(['network', 'connect', network, gateway])
    const reconnected = performance.now()
    const after = addressOn()
    const probe = `fetch('http://${after}:3000/healthz',{signal:AbortSignal.timeout(1000)}).then(r=>console.log(r.status),e=>console.log(e.cause?.code??e.name))`
    let answers = ''
    let redis = ''
    for (let tries = 0; tries < 60 && (answers !== '200' || redis !== 'ok'); tries++) {
      if (answers !== '200') answers = docker(['run', '--rm', '--network', network, '--entrypoint', 'node', `havenborg-website:${TAG_B}`, '-e', probe]).split('\n').at(-1) ?? ''
      if (redis !== 'ok') redis = readyzOf(gateway).checks?.redis ?? ''
      if (answers !== '200' || redis !== 'ok') await pause(1000)
    }
    log(`network cut: internal address ${before} → ${after}; port 3000 there: ${answers}, /readyz redis: ${redis}, ${((performance.now() - reconnected) / 1000).toFixed(1)} s after connect`)
    contentChecks.push({ expected: 'gateway answers on its new internal address and /readyz says redis ok', settled: answers === '200' && redis === 'ok' })
  }),
)

// Redis killed (kill -9): Swarm starts a new, empty one.
if (SCENARIOS.has('redis-kill')) results.push(
  await underLoad('Redis killed (docker kill -s KILL)', paths, async () => {
    await pause(3000)
    const redis = firstContainer('redis')
    docker(['kill', '-s', 'KILL', redis])
    while (containersOf('redis').includes(redis)) await pause(100)
    await waitHealthy(120_000)
    await pause(5000)
  }),
)

// Throughput with nothing happening, the reference for the scenarios' figures (same machine, same run).
if (SCENARIOS.has('steady')) results.push(await underLoad('steady load, nothing changes (reference)', paths, async () => pause(10_000)))

const table = reachability(docker, STACK, TAG_B)
console.log('\nReachability from a throwaway container on each network (every address of each name):')
printTable(table)
const wrongReach = checkReach(table)

console.log('\nSummary')
console.log(`  stack deploy to all healthy: ${healthySeconds.toFixed(1)} s`)
for (const result of results) {
  console.log(
    `  ${result.label}: ${result.failed} failed of ${result.sent}${result.failingMs > 0 ? ` over ${(result.failingMs / 1000).toFixed(1)} s` : ''}; asset 404s ${result.asset404} of ${result.assets}; p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
      `slowest ${result.latency.max} ms; ${result.throughput.perSecond} requests/s, lowest second ${result.throughput.lowestSecond}`,
  )
}
for (const check of contentChecks) console.log(`  content: ${JSON.stringify(check)}`)
console.log(`  front door: ${frontDoor.problems.length === 0 ? 'as shipped' : frontDoor.problems.join('; ')} (TLS 1.2 ciphers ${frontDoor.tls12Ciphers.join(' ')}; TLSv1 ${frontDoor.TLSv1}, TLSv1.1 ${frontDoor['TLSv1.1']}; HSTS ${frontDoor.pages['127.0.0.1']?.hsts})`)
if (wrongReach.length > 0) console.log(`  reachability not as documented: ${wrongReach.join('; ')}`)

if (process.env.KEEP_STACK !== '1') await removeStack()
const failed = results.some((result) => result.failed > 0 || result.asset404 > 0) || contentChecks.some((check) => !check.settled) || wrongReach.length > 0 || frontDoor.problems.length > 0
process.exitCode = failed ? 1 : 0
log(process.exitCode === 0 ? 'passed' : 'FAILED')
