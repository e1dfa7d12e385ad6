/**
 * Settings as data. Each service describes its environment variables in
 * tables of SettingRow (gateway/settings/, renderer/config.ts): name, kind,
 * default, range or values, what it does and how to see it take effect.
 * readSettings turns a table into typed values (SettingValues infers their
 * type from the table), and shared/setting-docs.ts makes
 * docs/configuration.md from the same tables. A bad value stops the service
 * at start with a ConfigError that names the variable, the value and what is
 * allowed.
 */
import { readFileSync } from 'node:fs'
import { ConfigError } from './errors.ts'
import type { SettingSubject } from './setting-docs.ts'

export type Env = Readonly<Record<string, string | undefined>>

/** A default that follows another setting (REDIS_KEY_PREFIX from SITE_HANDLE): a small named function of the environment. */
export type DerivedDefault<T> = (env: Env) => T

interface RowBase {
  name: string
  /** What it does, in one line of Markdown. */
  description: string
  /** How a reader sees it take effect: a header, a metric, a log line, or what else to check. */
  effect: string
  /** The default as docs/configuration.md shows it, when the value alone would mislead (a path, a derived default, `npm start`). */
  defaultText?: string
  /** The accepted values as docs/configuration.md shows them, when the kind alone does not say. */
  values?: string
  /** Variables this row's parser reads besides its own (REQUIRE_RENDER_SECRET), documented with it. */
  companions?: readonly CompanionRow[]
}

export interface IntegerRow extends RowBase {
  kind: 'integer'
  default: number | DerivedDefault<number>
  min: number
  max: number
}
export interface BooleanRow extends RowBase {
  kind: 'boolean'
  default: boolean
}
/** Free text; without a default it is undefined when unset. */
export interface StringRow extends RowBase {
  kind: 'string'
  default?: string | DerivedDefault<string>
  pattern?: RegExp
}
/** A file or folder: a value is taken as given, the default is relative to the project's root (`dist`). */
export interface PathRow extends RowBase {
  kind: 'path'
  default?: string
}
/** An http(s) URL; without a default it is undefined when unset. */
export interface UrlRow extends RowBase {
  kind: 'url'
  default?: string | DerivedDefault<string>
}
export interface UrlListRow extends RowBase {
  kind: 'url-list'
  default: string
}
/** A WebSocket address (ws:, wss:) or a path on the site; undefined when unset. */
export interface WsUrlRow extends RowBase {
  kind: 'ws-url'
}
/** From NAME or from the file NAME_FILE names (a Docker or Swarm secret); undefined when unset. */
export interface SecretRow extends RowBase {
  kind: 'secret'
  minLength: number
}
export interface EnumRow<Option extends string = string> extends RowBase {
  kind: 'enum'
  options: readonly Option[]
  default: Option | DerivedDefault<Option>
}
/** A value only its feature's parser reads (redirects, trust proxy, a Craft major): `parse` gets the trimmed value, or undefined when unset. */
export interface ParsedRow<T = unknown> extends RowBase {
  kind: 'list' | 'json' | 'enum' | 'secret' | 'string' | 'url'
  parse: (value: string | undefined, env: Env) => T
  defaultText: string
}

export type SettingRow = IntegerRow | BooleanRow | StringRow | PathRow | UrlRow | UrlListRow | WsUrlRow | SecretRow | EnumRow | ParsedRow
/** A variable another row's parser reads; documented beside that row. */
export type CompanionRow = IntegerRow | BooleanRow | StringRow | PathRow
export type SettingKind = SettingRow['kind']

/** Rows by the config property they fill; a nested table is a nested object of the config (`cache`, `redis`). */
export interface SettingsTable {
  readonly [property: string]: SettingRow | SettingsTable
}

/** The settings of one subject (one file, one section of docs/configuration.md). */
export interface SubjectSettings<Table extends SettingsTable = SettingsTable> {
  subject: SettingSubject
  table: Table
}

export function settingsOf<const Table extends SettingsTable>(subject: SettingSubject, table: Table): SubjectSettings<Table> {
  return { subject, table }
}

/** The value type of a row, from its kind (or its parser). */
export type SettingValue<Row> = Row extends { parse: (...args: never[]) => infer T }
  ? T
  : Row extends { kind: 'integer' }
    ? number
    : Row extends { kind: 'boolean' }
      ? boolean
      : Row extends { kind: 'enum'; options: readonly (infer Option)[] }
        ? Option
        : Row extends { kind: 'url-list' }
          ? URL[]
          : Row extends { kind: 'url'; default: string | DerivedDefault<string> }
            ? URL
            : Row extends { kind: 'url' }
              ? URL | undefined
              : Row extends { kind: 'string' | 'path'; default: string | DerivedDefault<string> }
                ? string
                : Row extends { kind: 'string' | 'path' | 'ws-url' | 'secret' }
                  ? string | undefined
                  : never

/** The values a table reads into, mutable as config objects are (tests adjust them). */
export type SettingValues<Table> = { -readonly [Property in keyof Table]: Table[Property] extends SettingRow ? SettingValue<Table[Property]> : SettingValues<Table[Property]> }

export function isSettingRow(entry: SettingRow | SettingsTable): entry is SettingRow {
  return typeof entry.name === 'string' && typeof entry.kind === 'string'
}

/** `root`: the project's folder, which the defaults of path rows are relative to (each service's config.ts knows it). */
export function readSettings<Table extends SettingsTable>(env: Env, table: Table, root?: URL): SettingValues<Table> {
  const values: Record<string, unknown> = {}
  for (const [property, entry] of Object.entries(table)) values[property] = isSettingRow(entry) ? readSetting(env, entry, root) : readSettings(env, entry, root)
  return values as SettingValues<Table>
}

function raw(env: Env, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

function defaultOf<T>(env: Env, fallback: T | DerivedDefault<T>): T {
  return typeof fallback === 'function' ? (fallback as DerivedDefault<T>)(env) : fallback
}

export function readSetting<Row extends SettingRow>(env: Env, row: Row, root?: URL): SettingValue<Row>
export function readSetting(env: Env, row: SettingRow, root?: URL): unknown {
  const value = raw(env, row.name)
  if ('parse' in row) return row.parse(value, env)
  switch (row.kind) {
    case 'integer':
      return parseInteger(row.name, value, row.min, row.max) ?? defaultOf(env, row.default)
    case 'boolean':
      return parseBoolean(row.name, value) ?? row.default
    case 'enum':
      return parseEnum(row.name, value, row.options) ?? defaultOf(env, row.default)
    case 'string':
      return checkPattern(row.name, value ?? (row.default === undefined ? undefined : defaultOf(env, row.default)), row.pattern)
    case 'path':
      return value ?? (row.default === undefined ? undefined : projectPath(row.name, row.default, root))
    case 'url': {
      const url = value ?? (row.default === undefined ? undefined : defaultOf(env, row.default))
      return url === undefined ? undefined : checkUrl(row.name, url)
    }
    case 'url-list':
      return parseUrlList(row.name, value ?? row.default)
    case 'ws-url':
      return value === undefined ? undefined : checkWsUrl(row.name, value)
    case 'secret':
      return readSecret(env, row.name, row.minLength)
  }
}

function projectPath(name: string, path: string, root: URL | undefined): string {
  if (root === undefined) throw new Error(`${name}: a path's default needs the project's root`)
  return new URL(path, root).pathname
}

export function parseInteger(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined
  if (!/^-?[0-9]+$/.test(value)) throw new ConfigError(`${name}="${value}" is not a whole number (${min} to ${max})`)
  const number = Number(value)
  if (number < min || number > max) throw new ConfigError(`${name}=${number} is out of range (${min} to ${max})`)
  return number
}

function parseBoolean(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined
  const lower = value.toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(lower)) return true
  if (['0', 'false', 'no', 'off'].includes(lower)) return false
  throw new ConfigError(`${name}="${lower}" is not a boolean (true/false)`)
}

function parseEnum<Option extends string>(name: string, value: string | undefined, options: readonly Option[]): Option | undefined {
  if (value === undefined) return undefined
  const option = options.find((candidate) => candidate === value)
  if (option === undefined) throw new ConfigError(`${name}="${value}" is not one of ${options.join(', ')}`)
  return option
}

function checkPattern(name: string, value: string | undefined, pattern: RegExp | undefined): string | undefined {
  if (value !== undefined && pattern && !pattern.test(value)) throw new ConfigError(`${name}="${value}" is invalid: expected ${pattern}`)
  return value
}

export function checkUrl(name: string, value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`${name}="${value}" is not a URL: expected an http(s) URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name}="${value}" must be http(s)`)
  return url
}

function parseUrlList(name: string, value: string): URL[] {
  const list = value.split(',').map((part) => part.trim()).filter(Boolean)
  if (list.length === 0) throw new ConfigError(`${name} is empty: expected http(s) URLs, comma-separated`)
  return list.map((part) => checkUrl(name, part))
}

function checkWsUrl(name: string, value: string): string {
  if (value.startsWith('/') && !value.startsWith('//')) return value
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`${name}="${value}" is not a URL: expected a ws(s):// URL or a path on the site`)
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new ConfigError(`${name}="${value}" must be ws(s):// or a path`)
  return value
}

/**
 * A secret from NAME, or from the file named by NAME_FILE (a Docker or Swarm secret under /run/secrets; its
 * content without the trailing line break), or undefined when neither is set. Both set, an unreadable file or
 * a secret too short to resist guessing stops the service.
 */
export function readSecret(env: Env, name: string, minLength: number): string | undefined {
  const file = raw(env, `${name}_FILE`)
  if (file !== undefined && raw(env, name) !== undefined) throw new ConfigError(`${name} and ${name}_FILE are both set: set one`)
  const value = file === undefined ? raw(env, name) : readSecretFile(`${name}_FILE`, file)
  if (value !== undefined && value.length < minLength) throw new ConfigError(`${name} is too short: at least ${minLength} characters`)
  return value
}

function readSecretFile(name: string, path: string): string | undefined {
  let content: string
  try {
    content = readFileSync(path, 'utf8')
  } catch (error) {
    throw new ConfigError(`${name}="${path}" cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
  }
  const value = content.replace(/\r?\n$/, '')
  return value === '' ? undefined : value
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
export const LOG_FORMATS = ['json', 'pretty'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]

/** LOG_FORMAT: json or pretty; unset, pretty lines in a terminal and JSON lines anywhere else. */
export function readLogFormat(env: Env, terminal: boolean): LogFormat {
  return parseEnum('LOG_FORMAT', raw(env, 'LOG_FORMAT')?.toLowerCase(), LOG_FORMATS) ?? (terminal ? 'pretty' : 'json')
}

/** Logging reads the same two variables in both services. */
export const LOGGING_SETTINGS = settingsOf('logging', {
  logLevel: {
    name: 'LOG_LEVEL',
    kind: 'enum',
    options: LOG_LEVELS,
    default: 'info',
    description: 'the least severe log lines written; the `/healthz`, `/readyz` and `/metrics` probes are logged at `debug`',
    effect: 'the log: at `debug`, a line per probe of `/healthz`, `/readyz` and `/metrics`; at `warn`, no line per request',
  },
  logFormat: {
    name: 'LOG_FORMAT',
    kind: 'enum',
    parse: (_value: string | undefined, env: Env) => readLogFormat(env, process.stdout.isTTY === true),
    values: LOG_FORMATS.map((format) => `\`${format}\``).join(', '),
    defaultText: '`pretty` in a terminal, else `json`',
    description: '`pretty`: one short coloured line per request (pino-pretty); `json`: pino JSON lines for a log collector (the image sets `json`)',
    effect: 'the log: a line starting with `{` is `json`; one with the time, level and `GET /path 200` is `pretty`',
  },
})

/** Read by both services' RENDER_SECRET rows (shared/render-protocol/signature.ts reads the secret). */
export const REQUIRE_RENDER_SECRET_SETTING = {
  name: 'REQUIRE_RENDER_SECRET',
  kind: 'boolean',
  default: false,
  defaultText: '`false` (the image: `true`)',
  description:
    '`true`: without `RENDER_SECRET` or `RENDER_SECRET_FILE` the service exits with code 2 (configuration error) instead of rendering unsigned. The image sets it; `npm start`, `npm run dev` and the tests do not need it (`npm start` makes its own secret)',
  effect: 'without a secret the start stops with `configuration error: RENDER_SECRET (or RENDER_SECRET_FILE) is required` on stderr and exit code 2',
} as const satisfies BooleanRow

/** A valid incoming request id is kept; anything else is replaced. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/
