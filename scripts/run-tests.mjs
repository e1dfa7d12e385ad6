// Runs tap on the machine's Node and again on the Node the container image
// runs (its major from the Dockerfile, installed from the npm registry), and
// ends with the plain line CI reads: "N passed, N failed". Each failure is
// repeated, with its file, its subtests and the start of its diagnostics, just
// above that line: CI keeps only the tail of a long run's output.
// TEST_NODE=current or TEST_NODE=image runs one of the two only.
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
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

/**
 * Picks the failures out of tap's TAP stream: every `not ok` line that is a
 * leaf (an assertion, or a subtest that failed with no failing child), named
 * by its file and the subtests around it, with the first lines of the YAML
 * diagnostics that follow it.
 */
class FailureCollector {
  static maxReported = 40
  static diagnosticLines = 24
  partial = ''
  /** Names of the open subtests by indent, from `# Subtest: name`. */
  subtests = []
  failures = []
  /** The failure whose diagnostics are being read, with the indent of its `not ok` line. */
  reading = null

  write(text) {
    const lines = (this.partial + text).split('\n')
    this.partial = lines.pop() ?? ''
    for (const line of lines) this.line(line)
  }

  end() {
    if (this.partial) this.line(this.partial)
    this.partial = ''
    // A failed subtest is reported by its failed assertions; it stands alone only when none of them failed.
    return this.failures.filter((failure) => !this.failures.some((other) => other !== failure && other.path.length > failure.path.length && failure.path.every((name, index) => other.path[index] === name)))
  }

  line(line) {
    const indent = line.length - line.trimStart().length
    const depth = Math.floor(indent / 4)
    const content = line.trim()
    if (this.reading) {
      if (indent > this.reading.indent && this.reading.failure.diagnostics.length < FailureCollector.diagnosticLines) {
        this.reading.failure.diagnostics.push(line.slice(this.reading.indent))
        return
      }
      if (indent > this.reading.indent) return
      this.reading = null
    }
    const subtest = /^# Subtest: (.*)$/.exec(content)
    if (subtest) {
      this.subtests.length = depth
      this.subtests[depth] = subtest[1]
      return
    }
    const notOk = /^not ok \d+ - (.*?)(?: # (?:time=.*))?$/.exec(content)
    if (notOk) {
      const path = [...this.subtests.slice(0, depth), notOk[1]]
      const failure = { path, diagnostics: [] }
      if (this.failures.length < FailureCollector.maxReported) this.failures.push(failure)
      this.reading = { failure, indent }
    }
  }
}

/** One tap run with the given Node (tests it spawns with process.execPath or `node` on PATH get the same). */
function runTap(node) {
  return new Promise((resolve) => {
    const tap = spawn(node, ['node_modules/tap/dist/esm/run.mjs', ...process.argv.slice(2)], {
      stdio: ['inherit', 'pipe', 'inherit'],
      env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? ''}`, TAP_REPORTER: process.env.TAP_REPORTER ?? 'tap' },
    })
    let tail = ''
    const failures = new FailureCollector()
    tap.stdout.on('data', (chunk) => {
      process.stdout.write(chunk)
      const text = chunk.toString('utf8')
      tail = (tail + text).slice(-4000)
      failures.write(text)
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
        failures: failures.end(),
      })
    })
  })
}

/**
 * tap builds its test class with the plugins package.json names (without
 * @tapjs/typescript: tsx loads the TypeScript) only when a run finds the
 * installed build differs, and that run still starts its files with the
 * build npm installed. In a fresh clone the first run's files therefore got
 * ts-node's loader too, whose resolver breaks puppeteer's import of
 * chromium-bidi: every Firefox test file failed on the first Node, in CI
 * only. Building first gives every file of every run the configured loaders.
 */
async function buildTapPlugins() {
  // Only when the build differs: a build empties node_modules/@tapjs/test/test-built first, and every tap process that
  // starts meanwhile on the same node_modules (a worktree's, StrykerJS's workers) fails to load tap.
  const { TapConfig } = await import('@tapjs/config')
  if (builtTapSignature() === (await TapConfig.load()).pluginSignature) return
  const build = spawnSync(process.execPath, ['node_modules/tap/dist/esm/run.mjs', 'build'], { stdio: 'inherit' })
  if (build.status !== 0) {
    console.error(`tap build failed (${build.status ?? build.signal})`)
    process.exit(1)
  }
}

/** The plugins tap's test class was last built with (the signature tap itself compares), or undefined. */
function builtTapSignature() {
  try {
    const built = readFileSync('node_modules/@tapjs/test/test-built/dist/esm/index.js', 'utf8')
    return /^export const signature = `([^`]*)`/m.exec(built)?.[1]?.trim()
  } catch {
    return undefined
  }
}

await buildTapPlugins()
const line = ({ passed, failed, skipped }) => `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`
const results = []
for (const run of runs) {
  console.log(`\n# the suite on Node ${run.major}`)
  const result = await runTap(run.node)
  console.log(`\nNode ${run.major}: ${line(result)}`)
  results.push({ ...result, major: run.major })
}
for (const result of results) {
  for (const failure of result.failures) {
    console.log(`\nfailed on Node ${result.major}: ${failure.path.join(' > ')}`)
    for (const diagnostic of failure.diagnostics) console.log(`    ${diagnostic}`)
  }
}
const total = results.reduce((sum, result) => ({
  passed: sum.passed + result.passed,
  failed: sum.failed + result.failed,
  skipped: sum.skipped + result.skipped,
}), { passed: 0, failed: 0, skipped: 0 })
console.log(`\n${line(total)}`)
process.exit(results.find((result) => result.exitCode !== 0)?.exitCode ?? 0)
