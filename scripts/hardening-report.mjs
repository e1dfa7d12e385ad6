// `npm run hardening`: what one stranger can cost the site, measured on the
// built services (dist/, embedded content) started as processes on loopback.
// Each measurement is a module of scripts/hardening/ that starts what it needs
// and stops it again; `npm run hardening -- --only=sockets,redis` runs some.
// Prints a table and writes bench/hardening.json or --out=FILE (the measurements of this
// run replace their earlier figures there; the others are kept, each with
// its date and commit).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { apiMemoryRows, measureApiMemory } from './hardening/api-memory.mjs'
import { floodLatencyRows, measureFloodLatency } from './hardening/flood-latency.mjs'
import { junkTokensRows, measureJunkTokens } from './hardening/junk-tokens.mjs'
import { measureMissFlood, missFloodRows } from './hardening/miss-flood.mjs'
import { measurePurgeRenders, purgeRendersRows } from './hardening/purge-renders.mjs'
import { measureReadinessProbes, readinessProbesRows } from './hardening/readiness-probes.mjs'
import { measureRedisPause, redisPauseRows } from './hardening/redis-pause.mjs'
import { measureRenderersDown, renderersDownRows } from './hardening/renderers-down.mjs'
import { ROOT, log } from './hardening/report-kit.mjs'
import { measureSockets, socketsRows } from './hardening/sockets-report.mjs'
import { measureStalePages, stalePagesRows } from './hardening/stale-pages.mjs'
import { measureUncachedWork, uncachedWorkRows } from './hardening/uncached-work.mjs'

const measurements = [
  { name: 'api', about: "gateway RSS after padded /api requests", run: measureApiMemory, rows: apiMemoryRows },
  { name: 'junk', about: 'CMS calls per 1,000 junk-token requests', run: measureJunkTokens, rows: junkTokensRows },
  { name: 'readiness', about: 'CMS calls per 300 readiness probes', run: measureReadinessProbes, rows: readinessProbesRows },
  { name: 'uncached', about: 'CMS calls and renders per 1,000 requests of four kinds', run: measureUncachedWork, rows: uncachedWorkRows },
  { name: 'stale', about: 'sitemap pages answered stale after a flood, renderer stopped', run: measureStalePages, rows: stalePagesRows },
  { name: 'down', about: 'p99 of stored pages under load with every renderer hung', run: measureRenderersDown, rows: renderersDownRows },
  { name: 'sockets', about: 'tokenless /cms/live sockets held, direct and through nginx', run: measureSockets, rows: socketsRows },
  { name: 'redis', about: 'slowest page after a Redis pause', run: measureRedisPause, rows: redisPauseRows },
  { name: 'flood', about: "a visitor's p99 during a 404 flood over alone", run: measureFloodLatency, rows: floodLatencyRows },
  { name: 'missflood', about: "a visitor's p99 and the event-loop lag during a miss flood from 200 addresses over alone", run: () => measureMissFlood(), rows: missFloodRows },
  { name: 'purge', about: 'renders per page after a purge under 50 concurrent visitors', run: measurePurgeRenders, rows: purgeRendersRows },
]

function selected(argv) {
  const only = argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length)
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(`npm run hardening [-- --only=NAME,...] [--out=FILE (bench/hardening.json)]\n${measurements.map(({ name, about }) => `  ${name.padEnd(10)} ${about}`).join('\n')}`)
    process.exit(0)
  }
  if (only === undefined) return measurements
  const names = only.split(',').map((name) => name.trim()).filter(Boolean)
  const unknown = names.filter((name) => !measurements.some((measurement) => measurement.name === name))
  if (unknown.length || names.length === 0) {
    console.error(`--only: unknown ${unknown.join(', ') || '(none given)'}; known: ${measurements.map(({ name }) => name).join(', ')}`)
    process.exit(2)
  }
  return measurements.filter(({ name }) => names.includes(name))
}

const commit = () => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
  } catch {
    return undefined
  }
}

function table(rows) {
  const width = Math.max(...rows.map(([label]) => label.length))
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n')
}

const argv = process.argv.slice(2)
const chosen = selected(argv)
if (!existsSync(join(ROOT, 'dist', 'gateway.js'))) throw new Error('run `npm run build` first')
const file = resolve(argv.find((arg) => arg.startsWith('--out='))?.slice('--out='.length) ?? join(ROOT, 'bench', 'hardening.json'))
const results = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}
const rows = []
const measuredAt = new Date().toISOString()
const head = commit()
const began = performance.now()
for (const measurement of chosen) {
  log(`${measurement.name}: ${measurement.about}`)
  const result = await measurement.run()
  results[measurement.name] = { measuredAt, commit: head, ...result }
  rows.push(...measurement.rows(result))
}
log(`done in ${Math.round((performance.now() - began) / 1000)} s`)
mkdirSync(dirname(file), { recursive: true })
writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`)
console.log(table(rows))
const shown = relative(process.cwd(), file)
console.log(`\n(written to ${shown.startsWith('..') ? file : shown})`)
process.exit(0)
