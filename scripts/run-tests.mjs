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
  // tap's last line, e.g. `# { total: 4983, pass: 4982, skip: 1 }`: a skipped test is not a failed one.
  const summary = [...tail.matchAll(/# \{ total: (\d+)((?:, \w+: \d+)*) \}/g)].pop()
  if (summary) {
    const counts = Object.fromEntries([...(summary[2] ?? '').matchAll(/(\w+): (\d+)/g)].map(([, name, count]) => [name, Number(count)]))
    const skipped = (counts.skip ?? 0) + (counts.todo ?? 0)
    console.log(`\n${counts.pass ?? 0} passed, ${counts.fail ?? 0} failed${skipped ? `, ${skipped} skipped` : ''}`)
  }
  process.exit(code ?? (signal ? 1 : 0))
})
