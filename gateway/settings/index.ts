import { LOGGING_SETTINGS, type SubjectSettings } from '../../shared/env.ts'
import { ADMISSION_SETTINGS } from './admission.ts'
import { BROWSER_SETTINGS } from './browser.ts'
import { CACHING_SETTINGS } from './caching.ts'
import { COMPRESSION_SETTINGS } from './compression.ts'
import { CRAFT_SETTINGS } from './craft.ts'
import { DEVELOPMENT_SETTINGS } from './development.ts'
import { LISTENING_SETTINGS } from './listening.ts'
import { REDIS_SETTINGS } from './redis.ts'
import { RENDERERS_SETTINGS } from './renderers.ts'

/** Every setting of the gateway, a table per subject; docs/configuration.md is made from them. */
export const GATEWAY_SETTINGS = [
  LISTENING_SETTINGS,
  RENDERERS_SETTINGS,
  CRAFT_SETTINGS,
  CACHING_SETTINGS,
  REDIS_SETTINGS,
  ADMISSION_SETTINGS,
  COMPRESSION_SETTINGS,
  BROWSER_SETTINGS,
  LOGGING_SETTINGS,
  DEVELOPMENT_SETTINGS,
] as const satisfies readonly SubjectSettings[]
