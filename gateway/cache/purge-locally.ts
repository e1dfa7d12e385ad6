import type { PageCache } from './page-cache.ts'
import type { QueryCache } from './query-cache.ts'

/** Drops from this gateway's memory (query answers, /api answers and pages) everything, or what was built from the tags. */
export function purgeLocally(
  caches: { cache: QueryCache; apiCache: QueryCache; pageCache: PageCache },
  tags: readonly string[] | undefined,
): { purged: number; pages: number } {
  return { purged: caches.cache.purge(tags) + caches.apiCache.purge(tags), pages: caches.pageCache.purge(tags) }
}
