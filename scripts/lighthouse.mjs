// `npm run lighthouse`: Lighthouse (mobile settings) on the home page, a job,
// an article, the offices page and an insurance page, with Debian's chromium; prints each page's
// scores and paint metrics and writes them to lighthouse/scores.json. Target:
// 100 everywhere; exits 1 when any category of any page scores below MINIMUM.
// Builds first only when dist/ is missing or older than the sources (or with
// --build), so it does not pull dist/ away from under someone else's running tests.
//
//   --runs=N   N runs a page, reporting Lighthouse's median run (closest to the
//              median FCP and TTI); a loaded machine moves the performance score
//              of a single run by several points (docs/performance-history.md).
//
// Each page is requested until the page cache holds it before it is measured:
// what visitors get nearly always. A run Lighthouse could not record (a trace
// without its navigation start, seen on a loaded machine) is run again.
import { execSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse from 'lighthouse'
import { computeMedianRun } from 'lighthouse/core/lib/median-run.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const CHROME = '/usr/bin/chromium'
const PAGES = ['/', '/werken-bij/allround-schadebehandelaar', '/actueel/van-verlegen-starter-naar-professional-in-haar-vakgebied', '/kantoren', '/onze-verzekeringen/autoverzekering']
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo']
const MINIMUM = 95
const RUNS = Math.max(1, Number(process.argv.find((arg) => arg.startsWith('--runs='))?.slice('--runs='.length) ?? 1) || 1)
/** A run Lighthouse could not record is tried this many times more. */
const RETRIES = 2
/** The paint and responsiveness metrics printed with each page's scores. */
const METRICS = { FCP: 'first-contentful-paint', LCP: 'largest-contentful-paint', TBT: 'total-blocking-time', CLS: 'cumulative-layout-shift', SI: 'speed-index' }

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
  env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(port), INTERNAL_PORT: '0', RENDERER_PORT: String(rendererPort), RENDERER_URL: `http://127.0.0.1:${rendererPort}`, GATEWAY_URL: `http://127.0.0.1:${port}`, SITE_URL: `http://localhost:${port}` },
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
// A page is stored once its first render has been sent: a few requests at most.
for (const path of PAGES) {
  for (let i = 0; i < 5; i++) {
    const response = await fetch(`http://localhost:${port}${path}`)
    await response.arrayBuffer()
    if (response.headers.get('x-cache') === 'HIT') break
  }
}

/** One Lighthouse run of `url`, run again when Lighthouse could not record it. */
async function measure(url, port) {
  for (let attempt = 0; ; attempt++) {
    const run = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES })
    if (!run.lhr.runtimeError || attempt === RETRIES) return run
    console.error(`${url}: ${run.lhr.runtimeError.code}; once more`)
  }
}

const formatMetric = (name, audit) => {
  if (!audit || audit.numericValue === undefined) return `${name} ?`
  if (name === 'CLS') return `${name} ${audit.numericValue.toFixed(3)}`
  return audit.numericValue >= 1000 ? `${name} ${(audit.numericValue / 1000).toFixed(2)} s` : `${name} ${Math.round(audit.numericValue)} ms`
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
    const runs = []
    for (let i = 0; i < RUNS; i++) runs.push(await measure(url, chrome.port))
    const recorded = runs.filter((candidate) => !candidate.lhr.runtimeError)
    const median = recorded.length > 0 ? computeMedianRun(recorded.map((candidate) => candidate.lhr)) : undefined
    const run = runs.find((candidate) => candidate.lhr === median) ?? runs[0]
    writeFileSync(join(root, 'lighthouse', `${path.replace(/\W+/g, '-').replace(/^-|-$/g, '') || 'home'}.report.json`), run.report)
    benchmarkIndex ??= run.lhr.environment.benchmarkIndex
    const scoreOf = (lhr, category) => Math.round((lhr.categories[category]?.score ?? 0) * 100)
    results[path] = Object.fromEntries(CATEGORIES.map((category) => [category, scoreOf(run.lhr, category)]))
    const metricsOf = (lhr) => Object.fromEntries(Object.entries(METRICS).map(([name, id]) => [name, lhr.audits[id]?.numericValue ?? null]))
    results[path].metrics = metricsOf(run.lhr)
    if (RUNS > 1) {
      results[path].performanceOfEachRun = runs.map((candidate) => scoreOf(candidate.lhr, 'performance'))
      results[path].metricsOfEachRun = runs.map((candidate) => metricsOf(candidate.lhr))
    }
    const failing = Object.values(run.lhr.audits).filter((audit) => audit.score !== null && audit.score < 1 && audit.scoreDisplayMode !== 'informative' && audit.scoreDisplayMode !== 'manual')
    results[path].notes = failing.map((audit) => `${audit.id}: ${audit.displayValue ?? audit.score}`).slice(0, 12)
    const scores = CATEGORIES.map((category) => `${category} ${results[path][category]}`).join(', ')
    const metrics = Object.entries(METRICS).map(([name, id]) => formatMetric(name, run.lhr.audits[id])).join(', ')
    const spread = RUNS > 1 ? ` (performance of the ${RUNS} runs: ${results[path].performanceOfEachRun.join(', ')}; median run shown)` : ''
    console.log(`${path}: ${scores}; ${metrics}${spread}`)
    if (results[path].notes.length > 0) console.log(`  below 1: ${results[path].notes.join('; ')}`)
  }
} finally {
  await chrome.kill()
  stop()
}
writeFileSync(join(root, 'lighthouse/scores.json'), `${JSON.stringify({ date: new Date().toISOString(), settings: 'mobile (Lighthouse default)', runs: RUNS, benchmarkIndex, pages: results }, null, 2)}\n`)
const below = Object.entries(results).flatMap(([path, scores]) =>
  CATEGORIES.filter((category) => scores[category] < MINIMUM).map((category) => `${path} ${category} ${scores[category]}`),
)
const lowest = Math.min(...Object.values(results).flatMap((scores) => CATEGORIES.map((c) => scores[c])))
console.log(`lowest score: ${lowest}`)
if (below.length > 0) console.error(`below ${MINIMUM}:\n  ${below.join('\n  ')}`)
process.exit(below.length > 0 ? 1 : 0)
