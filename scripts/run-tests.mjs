// Runs tap on the machine's Node and again on the Node the container image
// runs (its major from the Dockerfile, installed from the npm registry), and
// ends with the plain line CI reads: "N passed, N failed".
// TEST_NODE=current or TEST_NODE=image runs one of the two only.
import { spawn } from 'node:child_process'
import { dirname } from 'node:path'
import { ensureImageNode, imageNodeMajor } from './image-node.mjs'

const which = process.env.TEST_NODE ?? 'both'
if (!['both', 'current', 'image'].includes(which)) {
  console.error(`TEST_NODE=${which}: use both, current or image`)
  process.exit(2)
}
const currentMajor = Number(process.versions.node.split('.')[0])
const imageMajor = imageNodeMajor()
const runs = []
if (which !== 'image') runs.push({ major: currentMajor, node: process.execPath })
if (which !== 'current' && !(which === 'both' && imageMajor === currentMajor)) runs.push({ major: imageMajor, node: ensureImageNode(imageMajor) })

/** One tap run with the given Node (tests it spawns with process.execPath or `node` on PATH get the same). */
function runTap(node) {
  return new Promise((resolve) => {
    const tap = spawn(node, ['node_modules/tap/dist/esm/run.mjs', ...process.argv.slice(2)], {
      stdio: ['inherit', 'pipe', 'inherit'],
      env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? ''}`, TAP_REPORTER: process.env.TAP_REPORTER ?? 'tap' },
    })
    let tail = ''
    tap.stdout.on('data', (chunk) => {
      process.stdout.write(chunk)
      tail = (tail + chunk.toString('utf8')).slice(-4000)
    })
    tap.on('exit', (code, signal) => {
      // tap's last line, e.g. `# { total: 4983, pass: 4982, skip: 1 }`: a skipped test is not a failed one.
      const summary = [...tail.matchAll(/# \{ total: (\d+)((?:, \w+: \d+)*) \}/g)].pop()
      const counts = Object.fromEntries([...(summary?.[2] ?? '').matchAll(/(\w+): (\d+)/g)].map(([, name, count]) => [name, Number(count)]))
      const exitCode = code ?? (signal ? 1 : 0)
      resolve({
        passed: counts.pass ?? 0,
        // A run that ended without its summary failed as a whole.
        failed: (counts.fail ?? 0) + (summary || exitCode === 0 ? 0 : 1),
        skipped: (counts.skip ?? 0) + (counts.todo ?? 0),
        exitCode,
      })
    })
  })
}

const line = ({ passed, failed, skipped }) => `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`
const results = []
for (const run of runs) {
  console.log(`\n# the suite on Node ${run.major}`)
  const result = await runTap(run.node)
  console.log(`\nNode ${run.major}: ${line(result)}`)
  results.push(result)
}
const total = results.reduce((sum, result) => ({
  passed: sum.passed + result.passed,
  failed: sum.failed + result.failed,
  skipped: sum.skipped + result.skipped,
}), { passed: 0, failed: 0, skipped: 0 })
console.log(`\n${line(total)}`)
process.exit(results.find((result) => result.exitCode !== 0)?.exitCode ?? 0)
