/**
 * The documentation of every setting, kept beside the code that reads it.
 *
 * Each reader of shared/env.ts takes a SettingDoc as its last argument, so a
 * setting cannot be read without one. `npm run config-docs` calls each
 * service's config loader with an empty environment, collects what the
 * readers record (name, default, range or values, and the SettingDoc) and
 * writes docs/configuration.md from it; test/config-docs.test.ts fails when
 * that page is stale or when a variable is read without documentation.
 *
 * To add a setting: read it in the service's config.ts with its doc, e.g.
 *
 *   readInteger(env, 'PAGE_CACHE_TTL_MS', 30_000, 0, 86_400_000, {
 *     subject: 'caching',
 *     meaning: 'how long a rendered page is served from the page cache',
 *   })
 *
 * then run `npm run config-docs -- --write docs/configuration.md`.
 */

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

export interface SettingDoc {
  /** Which section of docs/configuration.md lists it. */
  subject: SettingSubject
  /** What it does, in one line of Markdown. */
  meaning: string
  /** The default as a reader should see it, when the code's fallback is computed (a path, another variable, `npm start`). */
  default?: string
  /** The accepted values, when the reader cannot tell them (a free string with rules of its own). */
  values?: string
}

/** One setting as a reader recorded it. */
export interface DocumentedSetting {
  name: string
  default: string
  values: string
  doc: SettingDoc
}

let collecting: { settings: Map<string, DocumentedSetting>; read: Set<string> } | undefined

/** Called by every reader in shared/env.ts; records only while collectSettings runs. */
export function recordSetting(name: string, fallback: string, values: string, doc: SettingDoc): void {
  if (collecting === undefined || collecting.settings.has(name)) return
  collecting.settings.set(name, { name, default: doc.default ?? fallback, values: doc.values ?? values, doc })
}

/**
 * The settings a config loader reads, in the order it reads them: the loader
 * runs on an empty environment, and every variable it looks at must have
 * been documented by a reader.
 */
export function collectSettings(load: (env: Readonly<Record<string, string | undefined>>) => unknown): DocumentedSetting[] {
  const state = { settings: new Map<string, DocumentedSetting>(), read: new Set<string>() }
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, key) {
      if (typeof key === 'string') state.read.add(key)
      return undefined
    },
  })
  collecting = state
  try {
    load(env)
  } finally {
    collecting = undefined
  }
  const undocumented = [...state.read].filter((name) => !state.settings.has(name))
  if (undocumented.length > 0) throw new Error(`read without documentation: ${undocumented.join(', ')} (give the reader a SettingDoc, shared/setting-docs.ts)`)
  for (const setting of state.settings.values()) {
    if (setting.doc.meaning.trim() === '' || /[\r\n]/.test(setting.doc.meaning)) throw new Error(`${setting.name}: its meaning must be one line of text`)
    if (setting.default.startsWith('/')) throw new Error(`${setting.name}: its default is a path of this machine; give the SettingDoc a default as readers should see it`)
  }
  return [...state.settings.values()]
}
