// What the sharing of one core costs a fresh page: gateway and renderer on
// core 0 as `npm run bench` runs them (scenario 4), against the same two
// processes with the renderer moved to the load generator's core (the
// gateway's CPU per page without the renderer beside it), and against both
// on core 0 with the gateway under SCHED_BATCH (a woken gateway then does not
// preempt the renderer mid-render). The same processes take turns in every
// round (their affinity and policy changed between slices), so JIT and caches
// are the same for all three. Only a diagnosis: no product setting comes from
// it (docs/performance.md, "What the shared core costs").
//
//   npm run build && node scripts/bench-interleave.mjs [--rounds=3] [--seconds=6] [--paced-share=0.5] [--out=FILE]
//
// Prints per configuration (medians of the rounds): pages a second, µs per
// page (1/rps), the gateway's CPU per page (all threads; its main thread's
// user and kernel time), the renderer's, how often per page the renderer was
// preempted and the gateway went to sleep, the latency of a small static file
// asked 50 times a second meanwhile (an answer of the gateway alone), and
// then, at a steady PACED_SHARE of the shared core's pages a second, each
// page's and the static file's latency (shared against batch); writes it all
// as JSON to bench/interleave.json (or --out).
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Agent, request } from 'undici'
import { CONNECTIONS, median, percentile, wrk, wrkResult } from './bench-load.mjs'
import { cores, cpuSplitOf, loadAverage, log, pin, root, startSystem, stopAll, switchesOf } from './bench-processes.mjs'

const text = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)
const option = (name, fallback) => Number(text(name) ?? fallback)
const OUT = text('out') ?? join(root, 'bench/interleave.json')
const ROUNDS = option('rounds', 3)
const SECONDS = option('seconds', 6)
const PROBE_INTERVAL_MS = 20
const PACE_MS = 10
/** The paced phase's fresh pages a second: a share of what the shared core gave at full load. */
const PACED_SHARE = option('paced-share', 0.5)

function reading(system) {
  const { gateway, renderer } = system
  return {
    gateway: cpuSplitOf(`/proc/${gateway.pid}/stat`),
    gatewayMain: cpuSplitOf(`/proc/${gateway.pid}/task/${gateway.pid}/stat`),
    renderer: cpuSplitOf(`/proc/${renderer.pid}/stat`),
    gatewaySwitches: switchesOf(gateway.pid),
    rendererSwitches: switchesOf(renderer.pid),
  }
}

/** Moves every thread of a process to a core, and sets its scheduling policy (`-o` normal, `-b` batch). */
const placed = (pid, core, policy) => {
  execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' })
  execFileSync('chrt', ['-a', policy, '-p', '0', String(pid)], { stdio: 'ignore' })
}

const CONFIGURATIONS = [
  { id: 'shared', name: 'both on core 0 (as scenario 4)', place: ({ gateway, renderer }) => (placed(gateway.pid, 0, '-o'), placed(renderer.pid, 0, '-o')) },
  { id: 'apart', name: 'the renderer on core 1, beside the load generator', place: ({ gateway, renderer }) => (placed(gateway.pid, 0, '-o'), placed(renderer.pid, 1, '-o')) },
  { id: 'batch', name: 'both on core 0, the gateway SCHED_BATCH', place: ({ gateway, renderer }) => (placed(gateway.pid, 0, '-b'), placed(renderer.pid, 0, '-o')) },
]

/** A fresh-page load on core 1 (wrk, as the bench's), without blocking this process: the latency probe runs meanwhile. */
async function load(url, seconds) {
  const [cmd, argv] = pin(1, 'wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, url])
  const { stdout } = await promisify(execFile)(cmd, argv, { encoding: 'utf8' })
  return wrkResult(stdout)
}

/**
 * The latency of an answer that needs no renderer (a small static file),
 * asked every PROBE_INTERVAL_MS while the fresh pages load the core: what a
 * gateway that does not preempt the renderer costs the answers it gives
 * alone (cache hits too). Few enough not to change the load.
 */
async function probeLatency(url, until) {
  const agent = new Agent({ connections: 1 })
  const latencies = []
  try {
    while (performance.now() < until) {
      const started = performance.now()
      const answer = await request(url, { dispatcher: agent })
      await answer.body.arrayBuffer()
      latencies.push(performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS))
    }
  } finally {
    await agent.close()
  }
  return percentiles(latencies)
}

/** Latencies' median and 99th percentile in ms. */
function percentiles(latencies) {
  const at = (p) => Number((percentile(latencies, p) ?? Number.NaN).toFixed(2))
  return { p50: at(50), p99: at(99) }
}

/**
 * Fresh pages at a steady `perSecond` (open loop: each sent on time, however
 * long the ones before take), every 10 ms a few, for `seconds`: the load of a
 * site that is busy but not saturated, where latency matters more than
 * capacity. Their latencies, and the answers that were not 200.
 */
async function paced(url, perSecond, seconds) {
  const agent = new Agent({ connections: 256 })
  const latencies = []
  let failed = 0
  const sent = []
  const one = async () => {
    const started = performance.now()
    try {
      const answer = await request(url, { dispatcher: agent })
      await answer.body.arrayBuffer()
      if (answer.statusCode !== 200) failed++
      latencies.push(performance.now() - started)
    } catch {
      failed++
    }
  }
  const began = performance.now()
  for (let tick = 1; tick <= (seconds * 1000) / PACE_MS; tick++) {
    const due = Math.round((tick * PACE_MS * perSecond) / 1000) - Math.round(((tick - 1) * PACE_MS * perSecond) / 1000)
    for (let i = 0; i < due; i++) sent.push(one())
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, began + tick * PACE_MS - performance.now())))
  }
  await Promise.all(sent)
  await agent.close()
  return { ...percentiles(latencies), failed }
}

async function main() {
  if (cores < 2) throw new Error('needs two cores: the servers on core 0, the load generator (and, apart, the renderer) on core 1')
  // This process (the latency probe) beside the load generator, off the servers' core.
  execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
  const system = await startSystem('page cache off', { PAGE_CACHE: 'false' }, { secret: 'bench-interleave-secret-0123456789abcdef' })
  const url = `${system.url}/`
  const rows = new Map(CONFIGURATIONS.map((configuration) => [configuration.id, []]))
  for (const configuration of CONFIGURATIONS) {
    configuration.place(system)
    wrk(url, Math.min(3, SECONDS))
  }
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? CONFIGURATIONS : [...CONFIGURATIONS].reverse()
    for (const configuration of order) {
      configuration.place(system)
      wrk(url, Math.min(2, SECONDS))
      const before = reading(system)
      const loading = load(url, SECONDS)
      const probe = await probeLatency(`${system.url}/favicon.svg`, performance.now() + (SECONDS - 0.5) * 1000)
      const result = await loading
      const after = reading(system)
      if (result.non2xx > 0 || result.errors > 0 || result.requests === 0) throw new Error(`${configuration.name}: ${result.non2xx} answers not 2xx, ${result.errors} socket errors`)
      const per = (value) => value / result.requests
      const cpu = (key) => per(after[key].user + after[key].system - before[key].user - before[key].system)
      rows.get(configuration.id).push({
        rps: result.rps,
        us_per_page: 1_000_000 / result.rps,
        gateway_cpu_us: cpu('gateway'),
        gateway_main_user_us: per(after.gatewayMain.user - before.gatewayMain.user),
        gateway_main_kernel_us: per(after.gatewayMain.system - before.gatewayMain.system),
        renderer_cpu_us: cpu('renderer'),
        renderer_preempted_per_page: per(after.rendererSwitches.preempted - before.rendererSwitches.preempted),
        gateway_slept_per_page: per(after.gatewaySwitches.slept - before.gatewaySwitches.slept),
        static_file_p50_ms: probe.p50,
        static_file_p99_ms: probe.p99,
      })
      log(`round ${round}, ${configuration.name}: ${result.rps.toFixed(0)} pages/s`)
    }
  }
  const results = CONFIGURATIONS.map((configuration) => {
    const runs = rows.get(configuration.id)
    const medians = Object.fromEntries(Object.keys(runs[0]).map((key) => [key, Number(median(runs.map((run) => run[key])).toFixed(2))]))
    return { configuration: configuration.id, name: configuration.name, ...medians }
  })
  // The same two configurations (shared, batch) at half the shared core's capacity: what each costs a page's and a static file's latency.
  const perSecond = Math.round(PACED_SHARE * results[0].rps)
  const pacedRows = []
  for (const configuration of CONFIGURATIONS.filter((c) => c.id !== 'apart')) {
    configuration.place(system)
    const pages = paced(url, perSecond, SECONDS)
    const probe = await probeLatency(`${system.url}/favicon.svg`, performance.now() + (SECONDS - 0.5) * 1000)
    const fresh = await pages
    if (fresh.failed > 0) throw new Error(`${configuration.name}, paced: ${fresh.failed} pages failed`)
    pacedRows.push({ configuration: configuration.id, name: configuration.name, pages_per_second: perSecond, page_p50_ms: fresh.p50, page_p99_ms: fresh.p99, static_file_p50_ms: probe.p50, static_file_p99_ms: probe.p99 })
    log(`paced ${perSecond}/s, ${configuration.name}: page p50 ${fresh.p50} ms`)
  }
  const header = ['configuration', 'pages/s', 'µs a page', "gateway's CPU", 'main: user', 'main: kernel', "renderer's CPU", 'renderer preempted', 'gateway slept', 'a static file alongside: p50, p99 ms']
  console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`)
  for (const r of results) {
    console.log(`| ${r.name} | ${Math.round(r.rps)} | ${Math.round(r.us_per_page)} | ${Math.round(r.gateway_cpu_us)} | ${Math.round(r.gateway_main_user_us)} | ${Math.round(r.gateway_main_kernel_us)} | ${Math.round(r.renderer_cpu_us)} | ${r.renderer_preempted_per_page.toFixed(2)} | ${r.gateway_slept_per_page.toFixed(2)} | ${r.static_file_p50_ms}, ${r.static_file_p99_ms} |`)
  }
  console.log(`\nFresh pages paced at ${perSecond} a second (${PACED_SHARE} of the shared core's):\n\n| configuration | a page: p50, p99 ms | a static file alongside: p50, p99 ms |\n|---|---|---|`)
  for (const r of pacedRows) console.log(`| ${r.name} | ${r.page_p50_ms}, ${r.page_p99_ms} | ${r.static_file_p50_ms}, ${r.static_file_p99_ms} |`)
  mkdirSync(dirname(OUT), { recursive: true })
  writeFileSync(OUT, `${JSON.stringify({ date: new Date().toISOString(), rounds: ROUNDS, seconds: SECONDS, load_average_1min: loadAverage(), results, paced: pacedRows }, null, 2)}\n`)
}

try {
  await main()
} finally {
  stopAll()
}
process.exit(0)
