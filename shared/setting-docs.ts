/**
 * docs/configuration.md, made from the settings tables (shared/env.ts): each
 * service lists its tables (gateway/settings/index.ts, renderer/config.ts),
 * a table per subject, and documentedSettings turns their rows into the
 * rows of the page. `npm run config-docs` writes it; test/config-docs.test.ts
 * fails when the page is stale, or when a loader reads a variable that no
 * table documents (variablesRead).
 *
 * To add a setting: add its row to the table of its subject, e.g. in
 * gateway/settings/caching.ts
 *
 *   pageTtlMs: {
 *     name: 'PAGE_CACHE_TTL_MS', kind: 'integer', default: 30_000, min: 0, max: 86_400_000,
 *     description: 'how long a stored page stays fresh …',
 *     effect: '`X-Cache: HIT`, then `STALE` …',
 *   },
 *
 * then run `npm run config-docs -- --write docs/configuration.md`.
 */
import type { CompanionRow, Env, SettingRow, SettingsTable, SubjectSettings } from './env.ts'
import { isSettingRow } from './env.ts'

/** The sections of docs/configuration.md, in this order within each service. */
export const SETTING_SUBJECTS = {
  listening: 'Listening, probes and the build',
  renderers: 'Renderers and render requests',
  craft: 'Craft and the embedded content API',
  caching: 'Caches',
  redis: 'Several gateways: Redis',
  admission: 'What one client may cost: admission, rate limits, timeouts',
  compression: 'Compression',
  browser: 'Browser, origins and live preview',
  logging: 'Logging',
  development: 'Development',
} as const

export type SettingSubject = keyof typeof SETTING_SUBJECTS

/** One row of docs/configuration.md. */
export interface DocumentedSetting {
  name: string
  subject: SettingSubject
  kind: string
  default: string
  values: string
  description: string
  effect: string
}

const code = (value: string | number | boolean | RegExp): string => `\`${String(value)}\``

function defaultText(row: SettingRow | CompanionRow): string {
  if (row.defaultText !== undefined) return row.defaultText
  if ('default' in row && row.default !== undefined) {
    if (typeof row.default === 'function') throw new Error(`${row.name}: a derived default needs its defaultText`)
    return code(row.default)
  }
  return 'unset'
}

function valuesText(row: SettingRow | CompanionRow): string {
  if (row.values !== undefined) return row.values
  switch (row.kind) {
    case 'integer':
      return `${code(row.min)}–${code(row.max)}`
    case 'boolean':
      return '`true` / `false`'
    case 'string':
      return 'pattern' in row && row.pattern ? `matching ${code(row.pattern)}` : 'text'
    case 'path':
      return 'a path'
    case 'url':
      return 'an http(s) URL'
    case 'url-list':
      return 'http(s) URLs, comma-separated'
    case 'ws-url':
      return 'a ws(s):// URL or a path on the site'
    case 'secret':
      return 'minLength' in row && row.minLength > 1 ? `at least ${row.minLength} characters` : 'not empty'
    case 'enum':
      return 'options' in row ? row.options.map(code).join(', ') : row.kind
    default:
      return row.kind
  }
}

function documented(subject: SettingSubject, row: SettingRow | CompanionRow): DocumentedSetting {
  if (row.description.trim() === '' || /[\r\n]/.test(row.description)) throw new Error(`${row.name}: its description must be one line of text`)
  if (row.effect.trim() === '' || /[\r\n]/.test(row.effect)) throw new Error(`${row.name}: its effect must be one line of text`)
  const setting = { name: row.name, subject, kind: row.kind, default: defaultText(row), values: valuesText(row), description: row.description, effect: row.effect }
  if (setting.default.startsWith('/')) throw new Error(`${row.name}: its default is a path of this machine; give the row a defaultText as readers should see it`)
  return setting
}

/** A secret may come from a file instead: NAME_FILE, documented with it. */
function secretFileRow(row: SettingRow): CompanionRow {
  return {
    name: `${row.name}_FILE`,
    kind: 'string',
    values: 'a readable file',
    description: `a file holding \`${row.name}\` (a Docker or Swarm secret under \`/run/secrets\`), without its trailing line break; an empty file counts as unset. Set one of the two`,
    effect: `as \`${row.name}\`; a file that cannot be read stops the start with its error (\`ENOENT\`, \`EACCES\`)`,
  }
}

function rowsOf(table: SettingsTable): SettingRow[] {
  return Object.values(table).flatMap((entry) => (isSettingRow(entry) ? [entry] : rowsOf(entry)))
}

/** The rows of a service's tables, by subject in SETTING_SUBJECTS' order, each table's rows in its order, companions after their row. */
export function documentedSettings(tables: readonly SubjectSettings[]): DocumentedSetting[] {
  const settings: DocumentedSetting[] = []
  for (const subject of Object.keys(SETTING_SUBJECTS) as SettingSubject[]) {
    for (const { table } of tables.filter((settings) => settings.subject === subject)) {
      for (const row of rowsOf(table)) {
        settings.push(documented(subject, row))
        if (row.kind === 'secret') settings.push(documented(subject, secretFileRow(row)))
        for (const companion of row.companions ?? []) settings.push(documented(subject, companion))
      }
    }
  }
  return settings
}

/** The variables a config loader looks at when it runs on an empty environment. */
export function variablesRead(load: (env: Env) => unknown): string[] {
  const read = new Set<string>()
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === 'string') read.add(key)
      return undefined
    },
  })
  load(env)
  return [...read]
}

/** Throws when a loader reads a variable that none of its tables documents. */
export function checkDocumented(load: (env: Env) => unknown, tables: readonly SubjectSettings[]): void {
  const names = new Set(documentedSettings(tables).map((setting) => setting.name))
  const undocumented = variablesRead(load).filter((name) => !names.has(name))
  if (undocumented.length > 0) throw new Error(`read without documentation: ${undocumented.join(', ')} (add a row to a settings table, shared/env.ts)`)
}
