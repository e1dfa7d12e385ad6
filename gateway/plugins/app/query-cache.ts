import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { QueryCache } from '../../cache/query-cache.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The CMS's answers that pages are built from, in memory and (with REDIS_URL) in the shared tier. */
    cache: QueryCache
    /** /api's answers, apart from the pages' data (in this gateway's memory only). */
    apiCache: QueryCache
  }
}

async function queryCache(app: FastifyInstance): Promise<void> {
  const { config, sharedCache } = app
  app.decorate(
    'cache',
    new QueryCache({
      ...config.cache,
      onRefreshError: (key, error) => app.log.warn({ key, err: error }, 'background refresh failed; serving stale'),
      ...(sharedCache ? { shared: sharedCache } : {}),
    }),
  )
  // Never in Redis: what strangers ask for stays in this gateway's memory, within its own bounds.
  app.decorate(
    'apiCache',
    new QueryCache({
      ...config.cache,
      maxEntries: config.cache.apiMaxEntries,
      maxBytes: config.cache.apiMaxBytes,
      onRefreshError: (key, error) => app.log.warn({ key, err: error }, 'background refresh of an /api answer failed; serving stale'),
    }),
  )
}

export default fp(queryCache, { name: 'query-cache', dependencies: ['config', 'shared-tier'] })
