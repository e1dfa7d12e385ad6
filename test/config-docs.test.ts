import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { loadGatewayConfig } from '../gateway/config.ts'
import { GATEWAY_SETTINGS } from '../gateway/settings/index.ts'
import { RENDERER_SETTINGS, loadRendererConfig } from '../renderer/config.ts'
import { settingsOf } from '../shared/env.ts'
import { checkDocumented, documentedSettings } from '../shared/setting-docs.ts'
import { ROOT } from './helpers/processes.ts'

const SERVICES = [
  { load: loadGatewayConfig, tables: GATEWAY_SETTINGS },
  { load: loadRendererConfig, tables: RENDERER_SETTINGS },
] as const

t.test('docs/configuration.md is the reference the settings tables make', async (t) => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/config-docs.mjs', '--check', 'docs/configuration.md'], { cwd: ROOT, encoding: 'utf8' })
  t.equal(run.status, 0, run.stderr)
})

t.test('every variable a service reads is in its tables, and the page names each of them', async (t) => {
  const page = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8')
  for (const { load, tables } of SERVICES) {
    t.doesNotThrow(() => checkDocumented(load, tables), `${load.name} reads only documented variables`)
    const settings = documentedSettings(tables)
    t.ok(settings.length > 10, `${load.name} documents its settings`)
    for (const setting of settings) t.match(page, `| \`${setting.name}\` |`, `${setting.name} has its row`)
  }
  const gateway = documentedSettings(GATEWAY_SETTINGS)
  t.ok(gateway.some((setting) => setting.name === 'PAGE_CACHE_MAX_BYTES' && setting.default === '`671088640`'), 'a default is the one the code falls back to')
  t.ok(gateway.some((setting) => setting.name === 'PURGE_SECRET_FILE'), "a secret's file is documented with it")
})

t.test('a variable read without a row in a table is refused', async (t) => {
  const tables = [settingsOf('caching', { x: { name: 'SOMETHING', kind: 'integer', default: 1, min: 0, max: 2, description: 'a test', effect: 'none' } })]
  t.doesNotThrow(() => checkDocumented((env) => env.SOMETHING, tables))
  t.throws(() => checkDocumented((env) => [env.SOMETHING, env.SOMETHING_NEW], tables), /read without documentation: SOMETHING_NEW/)
  t.throws(() => checkDocumented(() => undefined, [settingsOf('caching', { x: { ...tables[0]!.table.x, description: 'two\nlines' } })]), /SOMETHING: its description must be one line/)
  t.throws(() => checkDocumented(() => undefined, [settingsOf('caching', { x: { ...tables[0]!.table.x, effect: '' } })]), /SOMETHING: its effect must be one line/)
})

t.test('the loaders still parse an empty environment into the defaults', async (t) => {
  t.equal(loadGatewayConfig({}).cache.pageMaxBytes, 640 * 1024 * 1024)
  t.equal(loadRendererConfig({}).port, 3001)
})
