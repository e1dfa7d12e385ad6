import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { ROOT } from './helpers/processes.ts'

/**
 * The benchmark is not a test, but it runs once here in its short mode so it
 * cannot rot: every scenario answers a fixed number of requests, each answer
 * right. How many a loaded machine manages in a second is not checked.
 */
t.test('npm run bench -- --smoke runs every scenario and each answers rightly', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const out = join(dir, 'results.json')
  try {
    await promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/bench.mjs'), '--smoke', '--no-build', `--out=${out}`], {
      cwd: ROOT,
      timeout: 240_000,
    })
  } catch (error) {
    t.fail(`the benchmark failed: ${String((error as { stderr?: string }).stderr ?? error).slice(-2000)}`)
    return
  }
  const results = JSON.parse(readFileSync(out, 'utf8')) as {
    mode: string
    settings: { requests: number }
    scenarios: { scenario: number | string; requests: number; non2xx: number; socket_errors: number; wrong_answers: number; vs_nginx: number }[]
    ttfb: Record<string, { cold_ms: number; warm_median_ms: number }>
    first_load_javascript: { gzip: number; brotli: number }
    gateway_memory: { rss_after_bytes: number }
  }
  t.equal(results.mode, 'smoke')
  t.ok(results.settings.requests > 0, 'a request count, not a duration')
  t.same(results.scenarios.map((s) => s.scenario), [1, 2, '2h', 3, '3b', 4, '4c', '4a', '4b', 5, 6, 7])
  for (const scenario of results.scenarios) {
    t.same(
      { requests: scenario.requests, non2xx: scenario.non2xx, socket_errors: scenario.socket_errors, wrong_answers: scenario.wrong_answers },
      { requests: results.settings.requests, non2xx: 0, socket_errors: 0, wrong_answers: 0 },
      `scenario ${scenario.scenario}: every request answered, with a 2xx and the right body`,
    )
  }
  t.equal(results.scenarios[0]?.vs_nginx, 1, 'ratios are against nginx')
  t.ok(Object.keys(results.ttfb).length === 2, 'time to first byte for scenarios 3 and 4')
  t.ok(results.first_load_javascript.gzip > 0 && results.first_load_javascript.brotli > 0)
  t.ok(results.gateway_memory.rss_after_bytes > 0)
})
