import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { loadGatewayConfig } from '../gateway/config.ts'
import { loadRendererConfig } from '../renderer/config.ts'
import { readInteger } from '../shared/env.ts'
import { collectSettings } from '../shared/setting-docs.ts'
import { ROOT } from './helpers/processes.ts'

t.test('docs/configuration.md is the reference the readers in gateway/config.ts and renderer/config.ts make', async (t) => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/config-docs.mjs', '--check', 'docs/configuration.md'], { cwd: ROOT, encoding: 'utf8' })
  t.equal(run.status, 0, run.stderr)
})

t.test('every variable a service reads is documented, and the page names each of them', async (t) => {
  const page = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8')
  for (const load of [loadGatewayConfig, loadRendererConfig]) {
    const settings = collectSettings(load)
    t.ok(settings.length > 10, `${load.name} documents its settings`)
    for (const setting of settings) t.match(page, `| \`${setting.name}\` |`, `${setting.name} has its row`)
  }
  t.ok(collectSettings(loadGatewayConfig).some((setting) => setting.name === 'PAGE_CACHE_MAX_BYTES' && setting.default === '`67108864`'), 'a default is the one the code falls back to')
})

t.test('a variable read without its documentation is refused', async (t) => {
  t.throws(() => collectSettings((env) => env.SOMETHING_NEW), /read without documentation: SOMETHING_NEW/)
  t.throws(
    () => collectSettings((env) => readInteger(env, 'SOMETHING_NEW', 1, 0, 2, { subject: 'caching', meaning: '' })),
    /SOMETHING_NEW: its meaning must be one line/,
  )
  t.throws(
    () => collectSettings((env) => readInteger(env, 'SOMETHING_NEW', 1, 0, 2, { subject: 'caching', meaning: 'two\nlines' })),
    /SOMETHING_NEW: its meaning must be one line/,
  )
  const settings = collectSettings((env) => readInteger(env, 'SOMETHING_NEW', 1, 0, 2, { subject: 'caching', meaning: 'a test' }))
  t.same(settings, [{ name: 'SOMETHING_NEW', default: '`1`', values: '`0`–`2`', doc: { subject: 'caching', meaning: 'a test' } }])
})

t.test('reading documents nothing outside collectSettings, and parsing is unchanged', async (t) => {
  t.equal(readInteger({ X: '5' }, 'X', 1, 0, 10, { subject: 'caching', meaning: 'x' }), 5)
  t.equal(loadGatewayConfig({}).cache.pageMaxBytes, 64 * 1024 * 1024)
  t.equal(loadRendererConfig({}).port, 3001)
})
