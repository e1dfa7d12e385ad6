import type { PageCache } from './page-cache.ts'
import type { QueryCache } from './query-cache.ts'

/**
 * Drops from this gateway's memory (query answers, /api answers and pages)
 * everything, or what was built from the tags; a soft purge marks them stale
 * instead (PageCache.purge, QueryCache.purge).
 */
export function purgeLocally(
  caches: { cache: QueryCache; apiCache: QueryCache; pageCache: PageCache },
  tags: readonly string[] | undefined,
  soft = false,
): { purged: number; pages: number } {
  return { purged: caches.cache.purge(tags, soft) + caches.apiCache.purge(tags, soft), pages: caches.pageCache.purge(tags, soft) }
}
