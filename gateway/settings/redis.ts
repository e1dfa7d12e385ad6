import { type Env, readSetting, settingsOf } from '../../shared/env.ts'
import { ConfigError } from '../../shared/errors.ts'
import { CRAFT_SETTINGS } from './craft.ts'

function redisUrl(value: string | undefined): URL | undefined {
  if (value === undefined) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`REDIS_URL="${value}" is not a URL: expected redis:// or rediss://`)
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new ConfigError(`REDIS_URL="${value}" must be redis:// or rediss://`)
  return url
}

/** REDIS_KEY_PREFIX's default: the site's handle, so that sites can share a Redis. */
function siteHandlePrefix(env: Env): string {
  return `${readSetting(env, CRAFT_SETTINGS.table.siteHandle)}:`
}

/** The shared cache tier and purge fan-out across gateways; without a URL, in-memory caches only. */
export const REDIS_SETTINGS = settingsOf('redis', {
  redis: {
    url: {
      name: 'REDIS_URL',
      kind: 'url',
      parse: redisUrl,
      defaultText: 'unset',
      values: 'a `redis://` or `rediss://` URL',
      description:
        '`redis://` or `rediss://` address of a Redis shared by several gateways (see [caching](caching.md#several-gateways-the-shared-tier-on-redis)); unset = in-memory caches only, and no Redis code runs',
      effect: '`redis_up` on `/metrics` (1 while connected) and `checks.redis` in `GET /readyz`; neither is there without it',
    },
    commandTimeoutMs: {
      name: 'REDIS_COMMAND_TIMEOUT_MS',
      kind: 'integer',
      default: 100,
      min: 5,
      max: 10_000,
      description: 'longest wait for one Redis command; past it that lookup goes on without Redis (memory, then the CMS), and while commands keep failing the gateway serves from memory and the CMS until Redis answers again',
      effect: '`redis_errors_total` on `/metrics` counts the commands that ran out, and the log line `redis failing; serving from memory and the CMS`',
    },
    lockMs: {
      name: 'REDIS_LOCK_MS',
      kind: 'integer',
      default: 5000,
      min: 50,
      max: 120_000,
      description:
        'how long one gateway may hold the lock of a key while it asks the CMS (renewing its 500 ms lease); the others wait at most this long for it. A lock nobody renews (a gateway that died, a lock command that ran late) lapses within 500 ms',
      effect: 'with Craft slower than this, the other gateways ask Craft themselves: `upstream_request_duration_seconds_count` grows on each of them, not on one only',
    },
    keyPrefix: {
      name: 'REDIS_KEY_PREFIX',
      kind: 'string',
      default: siteHandlePrefix,
      defaultText: '`{SITE_HANDLE}:`',
      pattern: /^[A-Za-z0-9:_.-]{0,64}$/,
      description: 'prefix of every key and of the purge channel, so sites can share a Redis',
      effect: '`redis-cli --scan --pattern "{prefix}*"` lists the gateway\'s keys',
    },
  },
})
