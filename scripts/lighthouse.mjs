// `npm run lighthouse`: Lighthouse (mobile settings) on the home page, a job,
// an article and the offices page, with Debian's chromium; writes the scores
// to lighthouse/scores.json. Target: 100 everywhere; exits 1 when any
// category of any page scores below 95. Builds first only when dist/ is
// missing or older than the sources (or with --build), so it does not pull
// dist/ away from under someone else's running tests.
import { execSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse from 'lighthouse'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const CHROME = '/usr/bin/chromium'
const PAGES = ['/', '/werken-bij/allround-schadebehandelaar', '/actueel/van-verlegen-starter-naar-professional-in-haar-vakgebied', '/kantoren']
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo']
const MINIMUM = 95

const newestSource = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name)
    return Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs)
  }, 0)
const buildInfo = join(root, 'dist/build.json')
const stale = () =>
  !existsSync(buildInfo) ||
  Math.max(...['gateway', 'renderer', 'shared', 'public'].map((dir) => newestSource(join(root, dir)))) > statSync(buildInfo).mtimeMs

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

if (!existsSync(CHROME)) execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium', { stdio: 'inherit' })
if (process.argv.includes('--build') || (!process.argv.includes('--no-build') && stale())) execSync('node scripts/build.mjs', { cwd: root, stdio: 'inherit' })

const port = await freePort()
const rendererPort = await freePort()
const site = spawn(process.execPath, [join(root, 'scripts/start.mjs')], {
  env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(port), INTERNAL_PORT: String(await freePort()), RENDERER_PORT: String(rendererPort), RENDERER_URL: `http://127.0.0.1:${rendererPort}`, GATEWAY_URL: `http://127.0.0.1:${port}`, SITE_URL: `http://localhost:${port}` },
  stdio: 'inherit',
})
const stop = () => site.exitCode === null && site.kill('SIGTERM')
process.on('exit', stop)
for (let i = 0; i < 100; i++) {
  try {
    await fetch(`http://localhost:${port}/healthz`)
    break
  } catch {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const chrome = await chromeLauncher.launch({
  chromePath: CHROME,
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
const results = {}
let benchmarkIndex
mkdirSync(join(root, 'lighthouse'), { recursive: true })
try {
  for (const path of PAGES) {
    const url = `http://localhost:${port}${path}`
    const run = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES })
    writeFileSync(join(root, 'lighthouse', `${path.replace(/\W+/g, '-').replace(/^-|-$/g, '') || 'home'}.report.json`), run.report)
    benchmarkIndex ??= run.lhr.environment.benchmarkIndex
    results[path] = Object.fromEntries(CATEGORIES.map((category) => [category, Math.round((run.lhr.categories[category]?.score ?? 0) * 100)]))
    const failing = Object.values(run.lhr.audits).filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode !== 'informative' && audit.scoreDisplayMode !== 'manual')
    results[path].notes = failing.map((audit) => `${audit.id}: ${audit.displayValue ?? audit.score}`).slice(0, 12)
    console.log(path, JSON.stringify(results[path]))
  }
} finally {
  await chrome.kill()
  stop()
}
writeFileSync(join(root, 'lighthouse/scores.json'), `${JSON.stringify({ date: new Date().toISOString(), settings: 'mobile (Lighthouse default)', benchmarkIndex, pages: results }, null, 2)}\n`)
const below = Object.entries(results).flatMap(([path, scores]) =>
  CATEGORIES.filter((category) => scores[category] < MINIMUM).map((category) => `${path} ${category} ${scores[category]}`),
)
const lowest = Math.min(...Object.values(results).flatMap((scores) => CATEGORIES.map((c) => scores[c])))
console.log(`lowest score: ${lowest}`)
if (below.length > 0) console.error(`below ${MINIMUM}:\n  ${below.join('\n  ')}`)
process.exit(below.length > 0 ? 1 : 0)
