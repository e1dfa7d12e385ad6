import { spawnSync } from 'node:child_process'
import t from 'tap'
import { ROOT } from './helpers/processes.ts'

t.test("the suite's runner names each failure just above its last line, where CI's kept tail has it", async (t) => {
  // Without the outer run's tap variables, which would make the inner tap report as a subtest of this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TAP|_TAPJS)/.test(name)))
  const run = spawnSync(process.execPath, ['scripts/run-tests.mjs', 'test/fixtures/run-tests/failing.tap.ts'], {
    cwd: ROOT,
    env: { ...env, TEST_NODE: 'current' },
    encoding: 'utf8',
    timeout: 120_000,
  })
  t.equal(run.status, 1, 'the run fails')
  const lines = run.stdout.trimEnd().split('\n')
  t.match(lines.at(-1), /^\d+ passed, 2 failed$/, 'its last line counts both failures')
  const summary = run.stdout.slice(run.stdout.lastIndexOf('\nNode '))
  const major = process.versions.node.split('.')[0]
  const named = summary.split('\n').filter((line) => line.startsWith('failed on Node'))
  t.same(
    named,
    [
      `failed on Node ${major}: test/fixtures/run-tests/failing.tap.ts > outer > inner > one is two`,
      `failed on Node ${major}: test/fixtures/run-tests/failing.tap.ts > throws > thrown by the fixture`,
    ],
    'each failure by file and subtests; no subtest that failed only through its children, nothing that passed',
  )
  t.match(summary, /diff: \|[\s\S]*-2[\s\S]*\+1/, 'with its diagnostics')
})
