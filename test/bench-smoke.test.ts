import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { ROOT } from './helpers/processes.ts'

/** The benchmark is not a test, but it runs once here in its short mode so it cannot rot. */
t.test('npm run bench -- --smoke measures every scenario', async (t) => {
  await promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/bench.mjs'), '--smoke', '--no-build'], {
    cwd: ROOT,
    timeout: 240_000,
  })
  const results = JSON.parse(readFileSync(join(ROOT, 'bench/results.json'), 'utf8')) as {
    mode: string
    scenarios: { scenario: number | string; rps: number; non2xx: number; vs_nginx: number }[]
    ttfb: Record<string, { cold_ms: number; warm_median_ms: number }>
    first_load_javascript: { gzip: number; brotli: number }
    gateway_memory: { rss_after_bytes: number }
  }
  t.equal(results.mode, 'smoke')
  t.same(results.scenarios.map((s) => s.scenario), [1, 2, '2h', 3, '3b', 4, '4c', '4a', '4b', 5, 6, 7])
  for (const scenario of results.scenarios) {
    t.ok(scenario.rps > 0, `scenario ${scenario.scenario} answered`)
    t.equal(scenario.non2xx, 0, `scenario ${scenario.scenario} had only 2xx answers`)
  }
  t.equal(results.scenarios[0]?.vs_nginx, 1, 'ratios are against nginx')
  t.ok(Object.keys(results.ttfb).length === 2, 'time to first byte for scenarios 3 and 4')
  t.ok(results.first_load_javascript.gzip > 0 && results.first_load_javascript.brotli > 0)
  t.ok(results.gateway_memory.rss_after_bytes > 0)
})
