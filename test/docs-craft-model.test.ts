import { spawnSync } from 'node:child_process'
import t from 'tap'
import { DEFAULT_SITE_HANDLE } from '../shared/constants.ts'
// @ts-expect-error: a script in JavaScript, without types
import { craftModelTable } from '../scripts/craft-model.mjs'
import { unknownFieldModel } from './fixtures/unknown-field-model.ts'
import { ROOT } from './helpers/processes.ts'

t.test("docs/craft.md's table of the Craft model is the one the route table, documents and content model make", async (t) => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/craft-model.mjs', '--check', 'docs/craft.md'], { cwd: ROOT, encoding: 'utf8' })
  t.equal(run.status, 0, run.stderr)
})

const NAMES_THE_FIELD = /field `shiftColour` of `jobs` \/ `job` has type `colour`/

t.test('a field of a type the table does not know fails the table, naming the field and its type', async (t) => {
  t.throws(() => craftModelTable(DEFAULT_SITE_HANDLE, { model: unknownFieldModel() }), NAMES_THE_FIELD)
  t.notMatch(craftModelTable(), /undefined/, "the real model's table names every type")
})

t.test('npm run craft-model exits non-zero on such a field, with the message and no table', async (t) => {
  const script = `
    import { runCraftModel } from './scripts/craft-model.mjs'
    import { unknownFieldModel } from './test/fixtures/unknown-field-model.ts'
    runCraftModel({ argv: [], tables: { model: unknownFieldModel() } })
  `
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })
  t.equal(run.status, 1, run.stderr)
  t.match(run.stderr, NAMES_THE_FIELD)
  t.equal(run.stdout, '', 'no table printed')
})
