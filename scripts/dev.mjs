// `npm run dev`: both services built from the sources into dist-dev/ and run;
// a saved file rebuilds the bundles that include it, restarts only the service
// whose bundle changed, and once it is ready tells open pages to reload.
// Ctrl-C or SIGTERM stops everything.
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, watch, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { context } from 'esbuild'
import { ROOT, clientBuildOptions, serverBuildOptions, writeAssets } from './build-steps.mjs'
import { SERVICE_NODE_ARGS } from './service-node-args.mjs'

const out = join(ROOT, 'dist-dev')
const WATCHED = ['gateway', 'renderer', 'shared', 'public']
const STYLESHEET = 'public/styles.css'
/** Editors save in several writes; one rebuild for them all. */
const SETTLE_MS = 30
const SERVICE_PROCESS = join(ROOT, 'scripts/dev-service.mjs')
const SPARE_DELAY_MS = 1000
const HEALTH_POLL_MS = 25
const STOP_DEADLINE_MS = 5000
const PARENT_CHECK_MS = 1000

const say = (message) => console.log(`[dev] ${message}`)

rmSync(out, { recursive: true, force: true })
mkdirSync(join(out, 'client'), { recursive: true })

const env = {
  ...process.env,
  NODE_ENV: 'development',
  DIST_DIR: out,
  DEV_RELOAD_FILE: join(out, 'dev-generation'),
  // Every page rendered afresh, so a restarted renderer's output shows at once.
  PAGE_CACHE: 'false',
}
env.RENDERER_URL ??= `http://127.0.0.1:${env.RENDERER_PORT || 3001}`
env.GATEWAY_URL ??= `http://127.0.0.1:${env.PORT || 3000}`
if (!env.RENDER_SECRET?.trim()) env.RENDER_SECRET = randomBytes(32).toString('base64url')

let stopping = false
/** The watch of each folder under WATCHED, by its path from the project's root. */
const watchedFolders = new Map()

/** One esbuild context; rebuilt when a file among its last inputs changes, or on any change while it is broken. */
class Bundle {
  constructor(name, options) {
    this.name = name
    this.options = options
    this.inputs = new Set()
    this.failed = true
    this.fingerprint = undefined
    this.metafile = undefined
  }

  async start() {
    this.context = await context(this.options)
  }

  wants(files) {
    return this.failed || files.some((file) => this.inputs.has(file))
  }

  /** True when the built code differs from the last build; false when unchanged or broken (esbuild has printed why). */
  async rebuild() {
    let result
    try {
      result = await this.context.rebuild()
    } catch {
      this.failed = true
      say(`${this.name} not rebuilt: fix the error above; what runs stays as it was`)
      return false
    }
    this.failed = false
    this.metafile = result.metafile
    this.inputs = new Set(Object.keys(result.metafile.inputs))
    const hash = createHash('sha256')
    for (const file of Object.keys(result.metafile.outputs).filter((path) => path.endsWith('.js')).sort()) {
      hash.update(file).update(readFileSync(join(ROOT, file)))
    }
    const fingerprint = hash.digest('hex')
    const changed = fingerprint !== this.fingerprint
    this.fingerprint = fingerprint
    return changed
  }
}

/**
 * A service's process: run from its bundle, restarted after a rebuild,
 * reported when it dies on its own. The next process waits ready, its
 * packages loaded (scripts/dev-service.mjs), while this one runs.
 */
class Service {
  constructor(name, origin, bundles) {
    this.name = name
    this.healthz = new URL('/healthz', origin)
    this.bundles = bundles
    this.file = join(out, `${name}.js`)
    this.child = undefined
    this.spare = undefined
    /** A change waits for it: its restart was put off while one of its bundles was broken. */
    this.outdated = false
  }

  get running() {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
  }

  /** Every bundle it runs from built, and none broken now: esbuild removes a broken build's output files. */
  get buildable() {
    return this.bundles.every((bundle) => bundle.fingerprint !== undefined && !bundle.failed)
  }

  /** The packages the bundle imports, from its last build. */
  get packages() {
    const output = this.bundles[0].metafile?.outputs[relative(ROOT, this.file)]
    return (output?.imports ?? []).filter((imported) => imported.external).map((imported) => imported.path)
  }

  /** Starts the next process unless one waits already; resolves once it has loaded its packages (or died). */
  prepare() {
    if (!stopping && !this.spare?.connected && this.buildable) {
      const spare = spawn(process.execPath, [...SERVICE_NODE_ARGS, SERVICE_PROCESS, this.file, ...this.packages], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env })
      spare.loaded = new Promise((resolve) => {
        spare.once('message', resolve)
        spare.once('exit', resolve)
      })
      this.spare = spare
    }
    return this.spare?.loaded
  }

  start() {
    this.prepare()
    const child = this.spare
    this.spare = undefined
    child.send('run')
    this.child = child
    this.outdated = false
    say(`${this.name} started (pid ${child.pid})`)
    child.on('exit', (code, signal) => {
      if (this.child === child && !child.stopping && !stopping) say(`${this.name} exited (${code ?? signal}); it starts again on the next change`)
    })
  }

  async stop(child = this.child) {
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    child.stopping = true
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    const deadline = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS)
    await exited
    clearTimeout(deadline)
  }

  /** Stops the running process, starts a new one; true once it answers /healthz, false if it dies first. */
  async restart() {
    await this.stop()
    if (stopping) return false
    this.start()
    const child = this.child
    while (child.exitCode === null && child.signalCode === null) {
      try {
        const response = await fetch(this.healthz, { signal: AbortSignal.timeout(1000) })
        await response.arrayBuffer()
        if (response.ok) return true
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS))
    }
    return false
  }
}

const bundles = {
  gateway: new Bundle('gateway', serverBuildOptions(['gateway'], { dev: true, outdir: out })),
  renderer: new Bundle('renderer', serverBuildOptions(['renderer'], { dev: true, outdir: out })),
  client: new Bundle('client bundle', clientBuildOptions({ dev: true, outdir: join(out, 'client') })),
}
const services = {
  gateway: new Service('gateway', env.GATEWAY_URL, [bundles.gateway]),
  // The renderer names the client's files in every page, as build.json has them when it starts.
  renderer: new Service('renderer', env.RENDERER_URL.split(',')[0].trim(), [bundles.renderer, bundles.client]),
}
const buildId = `dev-${randomBytes(3).toString('hex')}`
let assets = ''
let generation = 0

/** build.json and the hashed stylesheet; true when the names in it changed (the renderer must learn them). */
function updateAssets() {
  if (!bundles.client.metafile) return false
  try {
    const next = JSON.stringify(writeAssets(out, bundles.client.metafile, { id: buildId, compress: false }))
    const changed = next !== assets
    assets = next
    return changed
  } catch (error) {
    say(`assets not written: ${error.message}`)
    return false
  }
}

/** Rebuilds what `files` (paths from the project's root) are part of, then restarts what changed. */
async function update(files) {
  const began = performance.now()
  const restart = new Set()
  const [gatewayChanged, rendererChanged, clientChanged] = await Promise.all(
    [bundles.gateway, bundles.renderer, bundles.client].map((bundle) => (bundle.wants(files) ? bundle.rebuild() : false)),
  )
  if (gatewayChanged) restart.add(services.gateway)
  if (rendererChanged) restart.add(services.renderer)
  if ((clientChanged || files.includes(STYLESHEET)) && updateAssets()) restart.add(services.renderer)
  // The gateway lists public/ when it starts.
  if (files.some((file) => file.startsWith('public/') && file !== STYLESHEET)) restart.add(services.gateway)
  // One that died (or never built) is tried again; so is one whose restart waited for a broken build.
  for (const service of Object.values(services)) if (!service.running || service.outdated) restart.add(service)

  const built = performance.now()
  for (const service of restart) {
    if (service.buildable) continue
    service.outdated = true
    say(`${service.name} not restarted: its build is broken; what runs stays as it was`)
  }
  const ready = await Promise.all([...restart].filter((service) => service.buildable).map((service) => service.restart()))
  // Once the reloaded pages have rendered, rather than competing with them.
  setTimeout(() => {
    for (const service of Object.values(services)) service.prepare()
  }, SPARE_DELAY_MS).unref()
  if (ready.length > 0 && ready.every(Boolean) && !stopping) {
    writeFileSync(env.DEV_RELOAD_FILE, String(++generation))
    if (generation === 1) {
      await Promise.all(Object.values(services).map((service) => service.prepare()))
      say(`ready on http://localhost:${new URL(env.GATEWAY_URL).port || 80}/ (built into dist-dev/); watching ${WATCHED.map((folder) => `${folder}/`).join(', ')}`)
    } else {
      const restarted = [...restart].map((service) => service.name).join(' and ')
      say(`pages reload: built in ${Math.round(built - began)} ms, ${restarted} ready ${Math.round(performance.now() - built)} ms later`)
    }
    return true
  }
  return false
}

let pending = new Set()
let settleTimer
let updating = Promise.resolve()
/** One update at a time, in order; a failure in one is reported and does not stop the next. */
function queue(task) {
  updating = updating.then(task).catch((error) => {
    console.error(error)
    return false
  })
  return updating
}
function changed(file) {
  // Editors' swap and backup files.
  if (/(^|\/)\.[^/]*$|~$/.test(file)) return
  pending.add(file)
  clearTimeout(settleTimer)
  settleTimer = setTimeout(() => {
    void queue(async () => {
      const files = [...pending]
      pending = new Set()
      if (files.length > 0 && !stopping) await update(files)
    })
  }, SETTLE_MS)
}

async function stopAll() {
  if (stopping) return
  stopping = true
  clearTimeout(settleTimer)
  for (const watcher of watchedFolders.values()) watcher.close()
  await Promise.all(Object.values(services).flatMap((service) => [service.stop(), service.stop(service.spare)]))
  await Promise.all(Object.values(bundles).map((bundle) => bundle.context?.dispose().catch(() => {})))
  process.exit(0)
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stopAll())
// Whoever started it is gone (a killed test run, say): nobody can stop it any more.
const parent = process.ppid
setInterval(() => {
  if (process.ppid !== parent) void stopAll()
}, PARENT_CHECK_MS).unref()
// Should this script itself fail, the services do not outlive it.
process.on('exit', () => {
  for (const service of Object.values(services)) {
    if (service.running) service.child.kill('SIGTERM')
    service.spare?.kill('SIGTERM')
  }
})

await Promise.all(Object.values(bundles).map((bundle) => bundle.start()))
// esbuild's own watch mode polls; the file system's events are quicker. Each folder is watched on its own, not with
// { recursive: true }: Node 20's recursive watcher follows a file's inode, so after an editor's atomic save (written
// elsewhere, renamed over the file) it never reports that file again. A folder's watch reports its entries by name.
function watchFolder(folder) {
  if (stopping || watchedFolders.has(folder)) return
  let watcher
  try {
    watcher = watch(join(ROOT, folder), (_type, name) => {
      if (!name) return
      const path = `${folder}/${name}`
      // A folder that appeared (created, or moved in) is watched with what it holds; one that went away is let go.
      const stat = statSync(join(ROOT, path), { throwIfNoEntry: false })
      if (stat?.isDirectory()) watchTree(path)
      else if (!stat) unwatchTree(path)
      changed(path)
    })
  } catch (error) {
    say(`${folder}/ is not watched: ${error.message}`)
    return
  }
  watcher.on('error', () => unwatchTree(folder))
  watchedFolders.set(folder, watcher)
}
function watchTree(folder) {
  watchFolder(folder)
  let entries = []
  try {
    entries = readdirSync(join(ROOT, folder), { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries) if (entry.isDirectory()) watchTree(`${folder}/${entry.name}`)
}
function unwatchTree(folder) {
  for (const [path, watcher] of watchedFolders) {
    if (path !== folder && !path.startsWith(`${folder}/`)) continue
    watcher.close()
    watchedFolders.delete(path)
  }
}
for (const folder of WATCHED) watchTree(folder)
if (!(await queue(() => update([])))) say('not started: fix the errors above; the watcher tries again on the next change')
