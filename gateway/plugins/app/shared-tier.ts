import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Gauge } from 'prom-client'
import { counter } from '../../../shared/metrics.ts'
import { purgeLocally } from '../../cache/purge-locally.ts'
import type { SharedTier } from '../../cache/shared-tier.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The shared cache tier on Redis; undefined without REDIS_URL. */
    sharedCache: SharedTier | undefined
  }
}

/** The Redis tier and its metrics; loaded only when REDIS_URL is set. */
async function startSharedTier(app: FastifyInstance, url: URL): Promise<SharedTier> {
  const { config } = app
  const { registry } = app.metrics
  const { SharedTier } = await import('../../cache/shared-tier.ts')
  const lookups = counter(registry, 'shared_cache_lookups_total', 'Lookups in the shared cache tier (Redis) by result (hit, miss, error)', ['result'])
  const errors = counter(registry, 'redis_errors_total', 'Failed Redis commands and connection errors', [])
  const tier = new SharedTier({
    url,
    commandTimeoutMs: config.redis.commandTimeoutMs,
    lockMs: config.redis.lockMs,
    keyPrefix: config.redis.keyPrefix,
    entryLifetimeMs: config.cache.ttlMs + Math.max(config.cache.staleWhileRevalidateMs, config.cache.staleIfErrorMs),
    // Pages while fresh: each gateway keeps its own copy for the stale windows.
    pages: { secret: config.renderSecret, lifetimeMs: config.cache.pageCache ? config.cache.pageTtlMs : 0 },
    log: app.log,
    // Another gateway's purge: this one's memory forgets the same.
    onPurge: (tags, soft) => purgeLocally(app, tags, soft),
    onLookup: (result) => lookups.inc({ result }),
    onCommandError: () => errors.inc(),
  })
  new Gauge({
    name: 'redis_up',
    help: '1 while both Redis connections (commands, purge channel) are up',
    registers: [registry],
    collect() {
      this.set(tier.up ? 1 : 0)
    },
  })
  return tier
}

/** The cache tier the gateways share (Redis), beside each one's memory. */
async function sharedTier(app: FastifyInstance): Promise<void> {
  const tier = app.config.redis.url ? await startSharedTier(app, app.config.redis.url) : undefined
  app.decorate('sharedCache', tier)
  if (tier) app.addHook('onClose', async () => tier.close())
}

export default fp(sharedTier, { name: 'shared-tier', dependencies: ['config', 'metrics'] })
