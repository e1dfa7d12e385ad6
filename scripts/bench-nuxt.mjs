// The Nuxt peer of `npm run bench` (issue 51): a small Nuxt 3 site written for
// the bench (scripts/bench-nuxt/) that renders the home page on every request
// from the same data as this site's, so that a fresh render is measured
// against what a user would otherwise pick, in the same run.
//
// Nuxt is never a dependency of the product and never part of `npm test`: the
// packages are installed from the registry into .cache/bench-nuxt/ (ignored by
// git), pinned to the version tested here, and the site is built there with
// `nuxi build`, again only when its sources, the stylesheet or the version
// changed. The bench writes the home page's payload to a file that the
// server reads when it starts, and runs it as Nuxt runs in production,
// `node .output/server/index.mjs`, on the servers' core.
//
//   node scripts/bench-nuxt.mjs      install and build only (after `npm run build`: the site's stylesheet)
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { log, root, start, startOnFreePort, tempDir } from './bench-processes.mjs'
import { SERVICE_NODE_ARGS } from './service-node-args.mjs'

/** The versions measured: Nuxt 3's last minor (issue 51 measured 3.21) and the Vue it was tested with. */
export const NUXT_VERSION = '3.21.11'
const VUE_VERSION = '3.5.45'
const SOURCE = join(root, 'scripts/bench-nuxt')
export const NUXT_DIR = join(root, '.cache/bench-nuxt')
const BUILD_STAMP = join(NUXT_DIR, '.output/bench-build.json')

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => statSync(join(dir, file)).isFile())
    .sort()
}

/** The product build's stylesheet (dist/build.json names it), which this site's pages carry inline. */
function siteStylesheet() {
  const { assets } = JSON.parse(readFileSync(join(root, 'dist/build.json'), 'utf8'))
  return readFileSync(join(root, 'dist/client', assets.stylesheet.replace(/^\/assets\//, '')), 'utf8')
}

/** Nuxt and Vue at the pinned versions in the scratch folder, installed from the registry when not there yet. */
function install() {
  const installed = (name) => {
    const file = join(NUXT_DIR, 'node_modules', name, 'package.json')
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined
  }
  if (installed('nuxt') === NUXT_VERSION && installed('vue') === VUE_VERSION) return
  mkdirSync(NUXT_DIR, { recursive: true })
  const manifest = { name: 'bench-nuxt-peer', private: true, type: 'module', dependencies: { nuxt: NUXT_VERSION, vue: VUE_VERSION } }
  writeFileSync(join(NUXT_DIR, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  log(`installing nuxt ${NUXT_VERSION} into ${relative(root, NUXT_DIR)} (about a minute)`)
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: NUXT_DIR, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NUXT_TELEMETRY_DISABLED: '1' } })
}

/**
 * Installs and builds the peer unless the build in .cache/bench-nuxt/ is of
 * the same sources, stylesheet and versions; returns the server's entry.
 */
export function buildNuxtPeer() {
  install()
  const css = siteStylesheet()
  const sources = filesUnder(SOURCE)
  const hash = createHash('sha256').update(`${NUXT_VERSION} ${VUE_VERSION}\n${css}`)
  for (const file of sources) hash.update(`\n${file}\n`).update(readFileSync(join(SOURCE, file)))
  const digest = hash.digest('hex')
  const entry = join(NUXT_DIR, '.output/server/index.mjs')
  if (existsSync(BUILD_STAMP) && JSON.parse(readFileSync(BUILD_STAMP, 'utf8')).digest === digest && existsSync(entry)) return entry
  // The sources afresh: a file removed from scripts/bench-nuxt/ must not stay in the build.
  for (const name of readdirSync(NUXT_DIR)) if (!['node_modules', 'package.json', 'package-lock.json'].includes(name)) rmSync(join(NUXT_DIR, name), { recursive: true, force: true })
  cpSync(SOURCE, NUXT_DIR, { recursive: true })
  mkdirSync(join(NUXT_DIR, 'assets'), { recursive: true })
  writeFileSync(join(NUXT_DIR, 'assets/site.css'), css)
  log(`building the Nuxt peer (nuxi build, nuxt ${NUXT_VERSION})`)
  execFileSync(join(NUXT_DIR, 'node_modules/.bin/nuxi'), ['build'], { cwd: NUXT_DIR, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NUXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' } })
  writeFileSync(BUILD_STAMP, `${JSON.stringify({ digest, nuxt: NUXT_VERSION, vue: VUE_VERSION })}\n`)
  return entry
}

/** The home page's data as the bench's system serves it: the gateway's payload, primary and deferred parts. */
export async function homePayloadOf(system) {
  const part = async (name) => (await fetch(`${system.url}/_payload.json?part=${name}`)).json()
  return { payload: await part('primary'), deferred: (await part('deferred')).data }
}

/**
 * Starts the built peer on the servers' core (bench-processes.mjs), with
 * the services' Node options so that a ratio compares the work, not V8's
 * settings, and `data` (homePayloadOf) in a file it reads at start; its
 * address and its process.
 */
export async function startNuxtPeer(entry, data) {
  const dir = tempDir('bench-nuxt-')
  const dataFile = join(dir, 'home.json')
  writeFileSync(dataFile, JSON.stringify(data))
  let child
  const url = await startOnFreePort((port) => {
    child = start(process.execPath, [...SERVICE_NODE_ARGS, entry], { NODE_ENV: 'production', NITRO_HOST: '127.0.0.1', NITRO_PORT: String(port), BENCH_NUXT_DATA: dataFile, NUXT_TELEMETRY_DISABLED: '1' }, { cwd: NUXT_DIR })
    return child
  })
  return { url, child }
}

/** The peer's page size beside this site's (issue 51: within 10 %). */
export function comparePageSizes(nuxtBytes, siteBytes) {
  const ratio = Number((nuxtBytes / siteBytes).toFixed(3))
  const within = Math.abs(ratio - 1) <= 0.1
  log(`the Nuxt peer's home page: ${nuxtBytes} bytes, this site's ${siteBytes} (${ratio}×${within ? '' : ', more than 10 % apart: the ratios compare pages of different sizes'})`)
  return { nuxt_page_bytes: nuxtBytes, site_page_bytes: siteBytes, ratio, within_10_percent: within }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) console.log(buildNuxtPeer())
