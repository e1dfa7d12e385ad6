// `npm run bench -- --profile`: where a fresh render's time goes. Starts the
// system under `node --cpu-prof`, loads it one scenario at a time (a
// window), and writes one .cpuprofile per process and a summary
// (summary.json, summary.md) to bench/profiles/ (--profile-dir=DIR elsewhere):
// per window and process, the top functions by self time (grouped by
// function and source file) and the steps of a fresh render, in % of the
// process's busy ticks and in CPU microseconds per request (the main thread's
// CPU time over the window, from /proc, shared out by the ticks).
//
// Windows: 4 (a fresh page, page cache off), 4c (the same, compressed),
// 4a (the renderer alone), 4m (page cache on, each page stale at once: every
// request a miss that is rendered and stored). With --smoke each window is a fixed
// number of requests instead of BENCH_PROFILE_SECONDS (10) of wrk.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runScenario } from './bench-load.mjs'
import { describe, stepsOf, summarize } from './bench-profile-summary.mjs'
import { cpuMicrosOf, loadAverage, log, startSystem, stop } from './bench-processes.mjs'

const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 10)
const WARM_SECONDS = 3
/** V8 samples the stack every this many microseconds (its default is 1000): more ticks per window, at a few percent of overhead. */
const INTERVAL_MICROS = Number(process.env.BENCH_PROFILE_INTERVAL_US ?? 250)
const TOP = 20
const SMOKE_WINDOW_REQUESTS = 80

const nowMicros = () => Number(process.hrtime.bigint() / 1000n)

/**
 * Profiles the windows. `scenariosOf(system)` gives the bench's scenarios
 * 4, 4c and 4a on a system (see bench.mjs); window 4m is made here.
 */
export async function runProfile({ smoke, secret, dir, scenariosOf }) {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  // Profiles are this machine's, not the project's.
  writeFileSync(join(dir, '.gitignore'), '*\n')
  // A folder per process: Node writes a profile per thread (a loader's hooks run on one of their own), the main thread's with thread id 0.
  const profiled = (system) => (service) => ['--cpu-prof', `--cpu-prof-dir=${join(dir, `${service}-${system}`)}`, `--cpu-prof-interval=${INTERVAL_MICROS}`]
  const fresh = await startSystem('profiled: page cache off', { PAGE_CACHE: 'false' }, { secret, nodeArgs: profiled('fresh') })
  // Every request a miss that is rendered and stored: a page-cache key holds only the parameters its route reads
  // (issue 31), so new addresses no longer make misses; a page that is stale at once, never served stale and never
  // waited for does.
  const stored = await startSystem(
    'profiled: page cache on, every page stale at once: each request rendered and stored',
    { PAGE_CACHE: 'true', PAGE_CACHE_TTL_MS: '0', CACHE_SWR_MS: '0', PAGE_RENDER_WAIT_MS: '0' },
    { secret, nodeArgs: profiled('stored') },
  )
  const scenarios = await scenariosOf(fresh)
  const byId = new Map(scenarios.map((scenario) => [String(scenario.id), scenario]))
  // The window measures misses: a second request for the page must not be a hit.
  for (let i = 0; i < 2; i++) {
    const response = await fetch(`${stored.url}/`)
    await response.arrayBuffer()
    if (i === 1 && response.headers.get('x-cache') !== 'MISS') throw new Error(`profile window 4m: a repeated request was ${response.headers.get('x-cache')}, not a miss`)
  }
  const missScenario = () => ({ ...byId.get('4'), id: '4m', url: () => `${stored.url}/`, wrkUrl: `${stored.url}/`, script: undefined })
  const windows = [
    { id: '4', name: 'home, page cache off (rendered every time)', scenario: () => byId.get('4'), processes: { gateway: fresh.gateway, renderer: fresh.renderer } },
    { id: '4c', name: 'the same, with Accept-Encoding: br, gzip', scenario: () => byId.get('4c'), processes: { gateway: fresh.gateway, renderer: fresh.renderer } },
    { id: '4a', name: 'the renderer alone: the render request posted to it', scenario: () => byId.get('4a'), processes: { renderer: fresh.renderer } },
    { id: '4m', name: 'page cache on, every page stale at once: each request rendered and stored', scenario: missScenario, processes: { gateway: stored.gateway, renderer: stored.renderer } },
  ]

  const load = (scenario, seconds) => runScenario(scenario, { smoke, seconds, count: SMOKE_WINDOW_REQUESTS })
  const measured = []
  for (const window of windows) {
    await load(window.scenario(), WARM_SECONDS)
    const scenario = window.scenario()
    const before = Object.fromEntries(Object.entries(window.processes).map(([service, child]) => [service, cpuMicrosOf(child.pid)]))
    const load1 = loadAverage()
    const from = nowMicros()
    const result = await load(scenario, SECONDS)
    const to = nowMicros()
    const cpu = {}
    for (const [service, child] of Object.entries(window.processes)) {
      const after = cpuMicrosOf(child.pid)
      cpu[service] = {
        main_thread_us_per_request: Number(((after.mainThread - before[service].mainThread) / Math.max(1, result.requests)).toFixed(1)),
        process_us_per_request: Number(((after.process - before[service].process) / Math.max(1, result.requests)).toFixed(1)),
      }
    }
    // A wrong answer means the window measured something else; a socket timeout on a loaded machine is only noted.
    if (result.non2xx > 0 || (result.wrong ?? 0) > 0) throw new Error(`profile window ${window.id}: ${result.non2xx} answers not 2xx, ${result.wrong ?? 0} wrong`)
    log(`profile window ${window.id}: ${result.requests} requests, ${result.rps.toFixed(0)} req/s, ${result.errors} socket errors, load ${load1}`)
    measured.push({ id: window.id, name: window.name, from, to, requests: result.requests, rps: Math.round(result.rps), socket_errors: result.errors, load1, cpu, files: Object.fromEntries(Object.entries(window.processes).map(([service, child]) => [service, `${service}-${child === fresh[service] ? 'fresh' : 'stored'}.cpuprofile`])) })
  }
  // Each process writes its profile as it exits; its main thread's is kept as <service>-<system>.cpuprofile.
  const processes = { 'gateway-fresh': fresh.gateway, 'renderer-fresh': fresh.renderer, 'gateway-stored': stored.gateway, 'renderer-stored': stored.renderer }
  await Promise.all(Object.values(processes).map(stop))
  for (const [name, child] of Object.entries(processes)) {
    const main = readdirSync(join(dir, name)).find((file) => file.includes(`.${child.pid}.0.`) && file.endsWith('.cpuprofile'))
    if (!main) throw new Error(`${name} (pid ${child.pid}) wrote no profile of its main thread`)
    renameSync(join(dir, name, main), join(dir, `${name}.cpuprofile`))
    rmSync(join(dir, name), { recursive: true, force: true })
  }

  const profiles = new Map()
  const profileOf = (file) => {
    if (!profiles.has(file)) profiles.set(file, JSON.parse(readFileSync(join(dir, file), 'utf8')))
    return profiles.get(file)
  }
  const summary = { date: new Date().toISOString(), mode: smoke ? 'smoke' : 'full', interval_us: INTERVAL_MICROS, seconds: smoke ? undefined : SECONDS, windows: [] }
  const markdown = []
  for (const window of measured) {
    const processes = {}
    for (const [service, file] of Object.entries(window.files)) {
      const profile = profileOf(file)
      const perRequestMicros = window.cpu[service].main_thread_us_per_request
      const options = { window: { from: window.from, to: window.to }, top: TOP, perRequestMicros }
      const top = summarize(profile, options)
      const steps = stepsOf(profile, service, options)
      processes[service] = { file, ...window.cpu[service], ...top, steps }
      markdown.push(
        `### Window ${window.id} (${window.name}): ${service}`,
        '',
        `${window.requests} requests, ${window.rps} req/s under the profiler, load ${window.load1}; CPU per request: main thread ${perRequestMicros} µs, whole process ${window.cpu[service].process_us_per_request} µs.`,
        '',
        describe(top, steps, { top: TOP }),
        '',
      )
    }
    summary.windows.push({ ...window, processes })
  }
  writeFileSync(join(dir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`)
  writeFileSync(join(dir, 'summary.md'), `${markdown.join('\n')}\n`)
  console.log(markdown.join('\n'))
  log(`profiles and summary in ${dir}; one profile again: node scripts/bench-profile-summary.mjs ${join(dir, 'gateway-fresh.cpuprofile')} --steps=gateway --from=${measured[0].from} --to=${measured[0].to}`)
  return summary
}
