// The servers of `npm run bench`: the system (gateway and renderer as the
// containers run them), nginx and the bare Fastify references, each pinned
// to core 0 where the machine has two (the load generator gets core 1), and
// all stopped when the bench ends.
import { execSync, spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { serverBuildOptions } from './build-steps.mjs'
import { saysAddressInUse, withFreePorts } from './free-port.mjs'
import { SERVICE_NODE_ARGS } from './service-node-args.mjs'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const log = (...args) => console.error('[bench]', ...args)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Servers on core 0, the load generator on core 1, where the machine has two. */
export const cores = Number(execSync('nproc').toString().trim())
export const pin = (core, command, args) => (cores > 1 && existsSync('/usr/bin/taskset') ? ['taskset', ['-c', String(core), command, ...args]] : [command, args])

const children = []
let stopping = false
const tempDirs = []

/** A server process on core 0; the last 4 KB of its output (the services log errors to stdout) are logged if it dies. */
export function start(command, args, env = {}, { cwd } = {}) {
  const [cmd, argv] = pin(0, command, args)
  const child = spawn(cmd, argv, { cwd, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  const keep = (chunk) => (stderr = (stderr + chunk).slice(-4000))
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  child.output = () => stderr
  child.exited = new Promise((resolve) => child.on('exit', resolve))
  child.on('exit', (code, signal) => {
    if ((code || signal) && !stopping && !child.stopping) log(`${args.join(' ')} exited ${code ?? signal}: ${stderr}`)
  })
  children.push(child)
  return child
}

/** Stops one server and waits for it to exit (a process under --cpu-prof writes its profile as it exits). */
export async function stop(child) {
  child.stopping = true
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
  await child.exited
}

/** A folder of this run's own, removed when the run ends. */
export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  tempDirs.push(dir)
  return dir
}

export function stopAll() {
  stopping = true
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
}
process.on('exit', stopAll)
process.on('SIGINT', () => process.exit(130))

/**
 * Waits for a server to answer; 60 s is only the bound for one that never
 * starts (a loaded machine starts slowly). Fails at once when one of `children`
 * exits first: with code EADDRINUSE when its port was taken (withFreePorts).
 */
export async function waitFor(url, children = []) {
  for (let i = 0; i < 1200; i++) {
    const exited = children.find((child) => child.exitCode !== null || child.signalCode !== null)
    if (exited) {
      const error = new Error(`a server for ${url} exited: ${exited.output()}`)
      throw saysAddressInUse(exited.output()) ? Object.assign(error, { code: 'EADDRINUSE' }) : error
    }
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

/**
 * Gateway and renderer as the containers run them (with the services' Node
 * options), on their own ports; `nodeArgs(service)` adds to those (the
 * profile's --cpu-prof). `distDir`: another build's dist/ (a baseline
 * commit's, see bench-baseline.mjs), run from its own folder.
 */
export async function startSystem(name, env, { secret, nodeArgs = () => [], distDir = join(root, 'dist') } = {}) {
  // Each is told the other's port; the internal listener binds port 0.
  return withFreePorts(2, async ([port, rendererPort]) => {
    // The load comes from one address: the per-client limits (/api, the work budget of uncached pages) are lifted.
    // RENDER_REPLAY_CHECK: scenario 4a sends the renderer one signed render request again and again (wrk cannot sign each).
    const common = { ...(process.env.CONTENT_DIR ? { CONTENT_DIR: process.env.CONTENT_DIR } : {}), LOG_LEVEL: 'warn', PORT: String(port), INTERNAL_PORT: '0', RENDERER_PORT: String(rendererPort), RENDERER_URL: `http://127.0.0.1:${rendererPort}`, GATEWAY_URL: `http://127.0.0.1:${port}`, API_RATE_LIMIT: '1000000', CLIENT_WORK_BUDGET: '1000000000', RATE_LIMIT_WINDOW_MS: '1000', RENDER_SECRET: secret, RENDER_REPLAY_CHECK: 'false', ...env }
    const argsOf = (service) => [...SERVICE_NODE_ARGS, ...nodeArgs(service), join(distDir, `${service}.js`)]
    const cwd = dirname(distDir)
    const renderer = start(process.execPath, argsOf('renderer'), common, { cwd })
    const gateway = start(process.execPath, argsOf('gateway'), common, { cwd })
    try {
      await waitFor(`http://127.0.0.1:${port}/healthz`, [gateway, renderer])
      await waitFor(`http://127.0.0.1:${rendererPort}/healthz`, [gateway, renderer])
    } catch (error) {
      await Promise.all([stop(gateway), stop(renderer)])
      throw error
    }
    log(`${name} on ${port}`)
    return { name, url: `http://127.0.0.1:${port}`, rendererUrl: `http://127.0.0.1:${rendererPort}`, gateway, renderer }
  })
}

/** Starts a one-port server (`begin(port)` returns its process) and waits until `path` answers, on fresh ports while its port was taken. */
export function startOnFreePort(begin, path = '/') {
  return withFreePorts(1, async ([port]) => {
    const child = begin(port)
    try {
      await waitFor(`http://127.0.0.1:${port}${path}`, [child])
    } catch (error) {
      await stop(child)
      throw error
    }
    return `http://127.0.0.1:${port}/`
  })
}

export async function startNginx(html) {
  const dir = tempDir('bench-nginx-')
  mkdirSync(join(dir, 'www'))
  writeFileSync(join(dir, 'www', 'index.html'), html)
  // nginx's workers run as an unprivileged user: they must be able to read the file.
  chmodSync(dir, 0o755)
  chmodSync(join(dir, 'www'), 0o755)
  chmodSync(join(dir, 'www', 'index.html'), 0o644)
  return startOnFreePort((port) => {
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
    return start('/usr/sbin/nginx', ['-c', join(dir, 'nginx.conf'), '-p', dir])
  })
}

/**
 * A bare Fastify route with the page's bytes (and `headers`, when given); with
 * `upstream`, one that fetches them from there (undici) and sends them on.
 * The Node references run with the services' Node options, so that a ratio
 * compares the work done, not V8's settings.
 */
export async function startBareFastify(html, { upstream, headers } = {}) {
  const dir = tempDir('bench-fastify-')
  writeFileSync(join(dir, 'index.html'), html)
  if (headers) writeFileSync(join(dir, 'headers.json'), JSON.stringify(headers))
  return startOnFreePort((port) =>
    start(process.execPath, [...SERVICE_NODE_ARGS, join(root, 'scripts/bench-bare-fastify.mjs')], {
      PORT: String(port),
      BODY_FILE: join(dir, 'index.html'),
      NODE_PATH: join(root, 'node_modules'),
      ...(upstream ? { UPSTREAM_URL: upstream } : {}),
      ...(headers ? { HEADERS_FILE: join(dir, 'headers.json') } : {}),
    }),
  )
}

/**
 * Scenario 4r: renderToString of the render request's page on a bare Fastify
 * route (scripts/bench-render-to-string.mjs), bundled as the servers are:
 * React inside and built for production, into dist/bench/ so that its
 * external packages resolve from the project's node_modules.
 */
export async function startRenderToString(renderRequestBody) {
  const outdir = join(root, 'dist/bench')
  await build({ ...serverBuildOptions([], { dev: false, outdir }), entryPoints: { 'render-to-string': join(root, 'scripts/bench-render-to-string.mjs') }, sourcemap: false, metafile: false })
  const dir = tempDir('bench-render-to-string-')
  writeFileSync(join(dir, 'render-request.ndjson'), renderRequestBody)
  return startOnFreePort((port) =>
    start(process.execPath, [...SERVICE_NODE_ARGS, join(outdir, 'render-to-string.js')], { PORT: String(port), RENDER_REQUEST_FILE: join(dir, 'render-request.ndjson'), DIST_DIR: join(root, 'dist'), LOG_LEVEL: 'warn' }),
  )
}

export function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
}

const CLOCK_TICKS_PER_SECOND = Number(execSync('getconf CLK_TCK').toString().trim()) || 100

/** CPU microseconds used so far, in user mode and in the kernel, by what a /proc stat file describes (a process, or one thread). */
export function cpuSplitOf(statFile) {
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = readFileSync(statFile, 'utf8').split(') ')[1].split(' ')
  return { user: (Number(fields[11]) * 1_000_000) / CLOCK_TICKS_PER_SECOND, system: (Number(fields[12]) * 1_000_000) / CLOCK_TICKS_PER_SECOND }
}

/** CPU microseconds a process has used so far (user + system): all its threads, and its main thread alone. */
export function cpuMicrosOf(pid) {
  const total = (file) => {
    const { user, system } = cpuSplitOf(file)
    return user + system
  }
  return { process: total(`/proc/${pid}/stat`), mainThread: total(`/proc/${pid}/task/${pid}/stat`) }
}

/**
 * A process's main thread's context switches so far: how often it went to
 * sleep (voluntary) and how often it was preempted (involuntary). Two servers
 * on one core preempt each other; each switch leaves the other's caches cold.
 */
export function switchesOf(pid) {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8')
  const count = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0)
  return { slept: count('voluntary_ctxt_switches'), preempted: count('nonvoluntary_ctxt_switches') }
}

/** The 1-minute load average now: the machine is shared, and every figure is noted with it. */
export const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])
