import { spawnSync } from 'node:child_process'
import t from 'tap'
import { ROOT } from './helpers/processes.ts'

t.test("docs/craft.md's table of the Craft model is the one the route table, documents and content model make", async (t) => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/craft-model.mjs', '--check', 'docs/craft.md'], { cwd: ROOT, encoding: 'utf8' })
  t.equal(run.status, 0, run.stderr)
})
