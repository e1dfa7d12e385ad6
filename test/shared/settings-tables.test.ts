import t from 'tap'
import { GATEWAY_SETTINGS } from '../../gateway/settings/index.ts'
import { RENDERER_SETTINGS } from '../../renderer/config.ts'
import { type SettingRow, type SubjectSettings, isSettingRow, readSetting, type SettingsTable } from '../../shared/env.ts'
import { ConfigError } from '../../shared/errors.ts'
import { SETTING_SUBJECTS, documentedSettings } from '../../shared/setting-docs.ts'

function rowsOf(table: SettingsTable): SettingRow[] {
  return Object.values(table).flatMap((entry) => (isSettingRow(entry) ? [entry, ...(entry.companions ?? [])] : rowsOf(entry)))
}

/** Why a row's own default is outside what the row accepts; undefined when it is within. */
function defaultOutOfRange(row: SettingRow): string | undefined {
  if (!('default' in row) || typeof row.default === 'function' || row.default === undefined) return undefined
  if (row.kind === 'integer' && !(row.min <= row.default && row.default <= row.max)) return `${row.default} is outside ${row.min}–${row.max}`
  if (row.kind === 'enum' && !row.options.includes(row.default)) return `${row.default} is not one of ${row.options.join(', ')}`
  if (row.kind === 'string' && row.pattern && !row.pattern.test(row.default)) return `${row.default} does not match ${row.pattern}`
  // The default given as a value must read back as itself.
  try {
    readSetting({ [row.name]: String(row.default) }, row, new URL('file:///'))
  } catch (error) {
    if (error instanceof ConfigError) return error.message
    throw error
  }
  return undefined
}

for (const [service, tables] of [['gateway', GATEWAY_SETTINGS], ['renderer', RENDERER_SETTINGS]] as const) {
  t.test(`the ${service}'s settings tables are consistent`, async (t) => {
    const seen = new Map<string, string>()
    for (const { subject, table } of tables as readonly SubjectSettings[]) {
      t.ok(Object.hasOwn(SETTING_SUBJECTS, subject), `${subject} is one of SETTING_SUBJECTS`)
      for (const row of rowsOf(table)) {
        const other = seen.get(row.name)
        t.equal(other, undefined, other === undefined ? `${row.name} is in one table only` : `${row.name} is also in the ${other} table`)
        seen.set(row.name, subject)
        t.equal(defaultOutOfRange(row), undefined, `${row.name}: its default is within its range`)
        if (typeof (row as { default?: unknown }).default === 'function' || 'parse' in row) t.ok(row.defaultText, `${row.name}: a computed default is shown as text`)
      }
    }
    t.ok(seen.size > 10)
    const documented = documentedSettings(tables).map((setting) => setting.name)
    t.same(documented.filter((name, index) => documented.indexOf(name) !== index), [], 'no name documented twice, NAME_FILE rows included')
  })
}

t.test('a default outside its range is found', async (t) => {
  const row = { name: 'X', kind: 'integer', default: 11, min: 0, max: 10, description: 'x', effect: 'x' } as const
  t.equal(defaultOutOfRange(row), '11 is outside 0–10')
  t.equal(defaultOutOfRange({ ...row, default: 10 }), undefined)
  t.equal(defaultOutOfRange({ name: 'Y', kind: 'enum', options: ['a', 'b'], default: 'c' as 'a', description: 'y', effect: 'y' }), 'c is not one of a, b')
})

t.test('a bad value stops the start with a ConfigError naming the variable, the value and what is allowed', async (t) => {
  for (const { table } of [...GATEWAY_SETTINGS, ...RENDERER_SETTINGS] as readonly SubjectSettings[]) {
    for (const row of rowsOf(table)) {
      if ('parse' in row) continue
      const bad = row.kind === 'integer' ? [['drie', `${row.min} to ${row.max}`], [String(row.max + 1), `${row.min} to ${row.max}`]] : row.kind === 'boolean' ? [['misschien', 'true/false']] : row.kind === 'enum' ? [['geen', row.options.join(', ')]] : row.kind === 'url' ? [['ftp://x', 'http(s)']] : []
      for (const [value, allowed] of bad as [string, string][]) {
        const error = t.throws(() => readSetting({ [row.name]: value }, row), ConfigError) as unknown as Error
        t.ok(error.message.startsWith(row.name) && error.message.includes(value) && error.message.includes(allowed), `${row.name}=${value}: ${error.message}`)
      }
    }
  }
})
