/**
 * Small readers for environment variables. Each service's config module is
 * the only caller; a bad value stops the service at start with a message that
 * names the variable. Every reader takes the setting's documentation
 * (SettingDoc), from which docs/configuration.md is generated.
 */
import { readFileSync } from 'node:fs'
import { ConfigError } from './errors.ts'
import { recordSetting, type SettingDoc } from './setting-docs.ts'

export type { SettingDoc } from './setting-docs.ts'

export type Env = Readonly<Record<string, string | undefined>>

function raw(env: Env, name: string): string | undefined {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

const code = (value: string | number | boolean | RegExp): string => `\`${String(value)}\``

export function readString(env: Env, name: string, fallback: string, doc: SettingDoc, pattern?: RegExp): string {
  recordSetting(name, code(fallback), pattern ? `matching ${code(pattern)}` : 'text', doc)
  const value = raw(env, name) ?? fallback
  if (pattern && !pattern.test(value)) throw new ConfigError(`${name}="${value}" is invalid: expected ${pattern}`)
  return value
}

export function readOptionalString(env: Env, name: string, doc: SettingDoc): string | undefined {
  recordSetting(name, 'unset', 'text', doc)
  return raw(env, name)
}

/**
 * A secret from NAME, or from the file named by NAME_FILE (a Docker or Swarm secret under /run/secrets; its
 * content without the trailing line break), or undefined when neither is set. Both set, an unreadable file or
 * a secret too short to resist guessing stops the service.
 */
export function readOptionalSecret(env: Env, name: string, minLength: number, doc: SettingDoc): string | undefined {
  recordSetting(name, 'unset', minLength > 1 ? `at least ${minLength} characters` : 'not empty', doc)
  recordSetting(`${name}_FILE`, 'unset', 'a readable file', {
    subject: doc.subject,
    meaning: `a file holding \`${name}\` (a Docker or Swarm secret under \`/run/secrets\`), without its trailing line break; an empty file counts as unset. Set one of the two`,
  })
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

/**
 * A secret that must be set when `requiredBy` (a boolean variable, e.g. REQUIRE_RENDER_SECRET, which the image
 * sets) is true; otherwise as readOptionalSecret.
 */
export function readSecret(env: Env, name: string, minLength: number, doc: SettingDoc, requiredBy: string, requiredByDoc: SettingDoc): string | undefined {
  const value = readOptionalSecret(env, name, minLength, doc)
  if (value === undefined && readBoolean(env, requiredBy, false, requiredByDoc)) throw new ConfigError(`${name} (or ${name}_FILE) is required: ${requiredBy} is set`)
  return value
}

export function readInteger(env: Env, name: string, fallback: number, min: number, max: number, doc: SettingDoc): number {
  recordSetting(name, code(fallback), `${code(min)}–${code(max)}`, doc)
  const value = raw(env, name)
  if (value === undefined) return fallback
  if (!/^-?[0-9]+$/.test(value)) throw new ConfigError(`${name}="${value}" is not a whole number`)
  const number = Number(value)
  if (number < min || number > max) throw new ConfigError(`${name}=${number} is out of range (${min} to ${max})`)
  return number
}

export function readBoolean(env: Env, name: string, fallback: boolean, doc: SettingDoc): boolean {
  recordSetting(name, code(fallback), '`true` / `false`', doc)
  const value = raw(env, name)?.toLowerCase()
  if (value === undefined) return fallback
  if (['1', 'true', 'yes', 'on'].includes(value)) return true
  if (['0', 'false', 'no', 'off'].includes(value)) return false
  throw new ConfigError(`${name}="${value}" is not a boolean (true/false)`)
}

function checkUrl(name: string, value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`${name}="${value}" is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name}="${value}" must be http(s)`)
  return url
}

export function readUrl(env: Env, name: string, fallback: string, doc: SettingDoc): URL {
  recordSetting(name, code(fallback), 'an http(s) URL', doc)
  return checkUrl(name, raw(env, name) ?? fallback)
}

export function readOptionalUrl(env: Env, name: string, doc: SettingDoc): URL | undefined {
  recordSetting(name, 'unset', 'an http(s) URL', doc)
  const value = raw(env, name)
  return value === undefined ? undefined : checkUrl(name, value)
}

/** A WebSocket address (ws: or wss:, or a path on the site such as /cms/live), or undefined. */
export function readOptionalWsUrl(env: Env, name: string, doc: SettingDoc): string | undefined {
  recordSetting(name, 'unset', 'a ws(s):// URL or a path on the site', doc)
  const value = raw(env, name)
  if (value === undefined) return undefined
  if (value.startsWith('/') && !value.startsWith('//')) return value
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`${name}="${value}" is not a URL`)
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new ConfigError(`${name}="${value}" must be ws(s):// or a path`)
  return value
}

export function readUrlList(env: Env, name: string, fallback: string, doc: SettingDoc): URL[] {
  recordSetting(name, code(fallback), 'http(s) URLs, comma-separated', doc)
  const list = (raw(env, name) ?? fallback).split(',').map((part) => part.trim()).filter(Boolean)
  if (list.length === 0) throw new ConfigError(`${name} is empty`)
  return list.map((value) => checkUrl(name, value))
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export function readLogLevel(env: Env, fallback: LogLevel = 'info'): LogLevel {
  recordSetting('LOG_LEVEL', code(fallback), LOG_LEVELS.map(code).join(', '), {
    subject: 'logging',
    meaning: 'the least severe log lines written; the `/healthz`, `/readyz` and `/metrics` probes are logged at `debug`',
  })
  const value = raw(env, 'LOG_LEVEL') ?? fallback
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError(`LOG_LEVEL="${value}" is not one of ${LOG_LEVELS.join(', ')}`)
  }
  return value as LogLevel
}

export const LOG_FORMATS = ['json', 'pretty'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]

/** LOG_FORMAT: json or pretty; unset, pretty lines in a terminal and JSON lines anywhere else. */
export function readLogFormat(env: Env, terminal: boolean): LogFormat {
  recordSetting('LOG_FORMAT', '`pretty` in a terminal, else `json`', LOG_FORMATS.map(code).join(', '), {
    subject: 'logging',
    meaning: '`pretty`: one short coloured line per request (pino-pretty); `json`: pino JSON lines for a log collector (the image sets `json`)',
  })
  const value = raw(env, 'LOG_FORMAT')?.toLowerCase()
  if (value === undefined) return terminal ? 'pretty' : 'json'
  if (!(LOG_FORMATS as readonly string[]).includes(value)) throw new ConfigError(`LOG_FORMAT="${value}" is not one of ${LOG_FORMATS.join(', ')}`)
  return value as LogFormat
}

/** A valid incoming request id is kept; anything else is replaced. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/
