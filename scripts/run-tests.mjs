// Runs tap and ends with the plain line CI reads: "N passed, N failed".
import { spawn } from 'node:child_process'

const tap = spawn(process.execPath, ['node_modules/tap/dist/esm/run.mjs', ...process.argv.slice(2)], {
  stdio: ['inherit', 'pipe', 'inherit'],
  env: { ...process.env, TAP_REPORTER: process.env.TAP_REPORTER ?? 'tap' },
})
let tail = ''
tap.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  tail = (tail + chunk.toString('utf8')).slice(-4000)
})
tap.on('exit', (code, signal) => {
  const summary = [...tail.matchAll(/# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?/g)].pop()
  if (summary) {
    const total = Number(summary[1])
    const passed = Number(summary[2] ?? 0)
    const failed = Number(summary[3] ?? total - passed)
    console.log(`\n${passed} passed, ${failed} failed`)
  }
  process.exit(code ?? (signal ? 1 : 0))
})
