import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { ROOT } from './helpers/processes.ts'

// Eight short loads of one system: under a minute, more on a loaded machine.
t.setTimeout(300_000)

interface Row {
  configuration: string
  rps: number
  us_per_page: number
  gateway_cpu_us: number
  gateway_main_user_us: number
  renderer_cpu_us: number
  renderer_preempted_per_page: number
  gateway_slept_per_page: number
  static_file_p50_ms: number
}

interface Paced {
  configuration: string
  pages_per_second: number
  page_p50_ms: number
  page_p99_ms: number
  static_file_p50_ms: number
}

/**
 * The diagnosis of what sharing a core costs (scripts/bench-interleave.mjs)
 * runs once, short, so that it cannot rot: each configuration loaded, its
 * figures read from /proc, the paced phase answered. No figure is compared
 * with another: a loaded machine moves them all.
 */
t.test('scripts/bench-interleave.mjs measures each configuration of one system', { skip: availableParallelism() < 2 ? 'needs two cores' : false }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-interleave-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const out = join(dir, 'interleave.json')
  try {
    await promisify(execFile)(process.execPath, [join(ROOT, 'scripts/bench-interleave.mjs'), '--rounds=1', '--seconds=1', '--paced-share=0.2', `--out=${out}`], { cwd: ROOT, timeout: 240_000 })
  } catch (error) {
    t.fail(`the script failed: ${String((error as { stderr?: string }).stderr ?? error).slice(-2000)}`)
    return
  }
  const { results, paced } = JSON.parse(readFileSync(out, 'utf8')) as { results: Row[]; paced: Paced[] }
  t.same(
    results.map((row) => row.configuration),
    ['shared', 'apart', 'batch'],
  )
  for (const row of results) {
    t.ok(row.rps > 0 && Math.abs(row.us_per_page - 1_000_000 / row.rps) < 1, `${row.configuration}: pages a second, and µs a page from them`)
    t.ok(row.gateway_cpu_us > 0 && row.renderer_cpu_us > 0 && row.gateway_main_user_us <= row.gateway_cpu_us, `${row.configuration}: each process's CPU a page, the main thread's part of the gateway's`)
    t.ok(Number.isFinite(row.renderer_preempted_per_page) && row.renderer_preempted_per_page >= 0 && Number.isFinite(row.gateway_slept_per_page), `${row.configuration}: switches a page counted`)
    t.ok(row.static_file_p50_ms > 0, `${row.configuration}: the static file's latency alongside`)
  }
  t.same(
    paced.map((row) => row.configuration),
    ['shared', 'batch'],
  )
  for (const row of paced) t.ok(row.pages_per_second > 0 && row.page_p50_ms > 0 && row.page_p99_ms >= row.page_p50_ms && row.static_file_p50_ms > 0, `${row.configuration}, paced: latencies of the pages and of the static file`)
})
