import { SITEMAP_PROTOCOL_MAX_URLS } from '../../shared/constants.ts'
import { settingsOf } from '../../shared/env.ts'

/**
 * How long past its TTL an answer or a page is still served at once while one
 * refresh runs. A site of 10,000 articles has a long tail of pages visited
 * less than once every ten minutes (the old default): each such visit waited
 * for a render, and a crawl slower than TTL + window (the cold pass over the
 * 100× content on a loaded machine) found its first pages gone. A day, the
 * stale-if-error window's default: what is kept is the same, only served
 * sooner; a purge (Craft's webhook) still marks an edited page at once.
 */
const DEFAULT_STALE_WHILE_REVALIDATE_MS = 86_400_000
/**
 * Cache bounds that hold a real site (issue 39): a site of 10,000 articles
 * has some 11,000 pages and as many query answers. 7/8 of the page cache's
 * bounds hold the sitemap's pages (cache/page-cache.ts): 21,875 pages and
 * 560 MiB, room for every page of such a site with both compressed
 * variants (docs/caching.md has what it measured). They are bounds, not
 * allocations: a small site uses what its pages take.
 */
const DEFAULT_PAGE_CACHE_MAX_ENTRIES = 25_000
const DEFAULT_PAGE_CACHE_MAX_BYTES = 640 * 1024 * 1024
const DEFAULT_QUERY_CACHE_MAX_ENTRIES = 50_000
const DEFAULT_QUERY_CACHE_MAX_BYTES = 256 * 1024 * 1024
/**
 * Background refreshes of stale pages (cache/page-refreshes.ts): two at once
 * keep a renderer busy without taking the visitors' turn (a visitor's miss
 * waits in the same render queue); 1,000 waiting is a big section's purge
 * (some 200 bytes each), refreshed within a minute or two.
 */
const DEFAULT_PAGE_REFRESH_CONCURRENCY = 2
const DEFAULT_PAGE_REFRESH_QUEUE = 1000
const MAX_BYTES = 8 * 1024 * 1024 * 1024

/** The query cache (Craft's answers), the page cache (whole pages), /api's own cache, purges and the sitemap. */
export const CACHING_SETTINGS = settingsOf('caching', {
  cache: {
    maxEntries: {
      name: 'CACHE_MAX_ENTRIES',
      kind: 'integer',
      default: DEFAULT_QUERY_CACHE_MAX_ENTRIES,
      min: 1,
      max: 1_000_000,
      description: "query cache (Craft's answers that pages and payloads are built from): most entries; past it the least recently used goes",
      effect: 'no gauge of its own: a bound too small shows as `cache_lookups_total{cache="query",result="MISS"}` on `/metrics` rising for queries asked before',
    },
    maxBytes: {
      name: 'CACHE_MAX_BYTES',
      kind: 'integer',
      default: DEFAULT_QUERY_CACHE_MAX_BYTES,
      min: 1024,
      max: MAX_BYTES,
      description: 'query cache: most bytes',
      effect: 'as `CACHE_MAX_ENTRIES`',
    },
    ttlMs: {
      name: 'CACHE_TTL_MS',
      kind: 'integer',
      default: 60_000,
      min: 0,
      max: 86_400_000,
      description:
        "how long a stored answer of Craft (query cache, and `/api`'s) stays fresh; after it, it is served stale for `CACHE_SWR_MS` while one background call refreshes it. Also the `s-maxage` of `_payload.json` for a CDN",
      effect: '`X-Cache: HIT` on `/api` and `_payload.json` answers until then, `STALE` after; `Cache-Control: …, s-maxage={CACHE_TTL_MS/1000}` on `_payload.json`',
    },
    staleWhileRevalidateMs: {
      name: 'CACHE_SWR_MS',
      kind: 'integer',
      default: DEFAULT_STALE_WHILE_REVALIDATE_MS,
      min: 0,
      max: 86_400_000,
      description:
        "how long past its freshness (`CACHE_TTL_MS` for Craft's answers, `PAGE_CACHE_TTL_MS` for stored pages) a stored answer or page is still served at once, stale, while one background refresh makes a new one; past it the next request waits for a new one. A day: a page of a big site visited less often than that is still served at once; edits reach it by purges",
      effect: "`X-Cache: STALE` instead of a wait for a render or for Craft; `stale-while-revalidate={CACHE_SWR_MS/1000}` in stored pages' and payloads' `Cache-Control`; `page_refreshes_total` on `/metrics` counts the pages' refreshes",
    },
    staleIfErrorMs: {
      name: 'CACHE_STALE_IF_ERROR_MS',
      kind: 'integer',
      default: 86_400_000,
      min: 0,
      max: 30 * 86_400_000,
      description:
        'how long past its freshness a stored answer stands in when Craft fails, and a stored page when no renderer answers (or one answers 5xx)',
      effect: 'with every renderer down, a page stored within this window answers 200 with `X-Cache: STALE` and `Cache-Control: private, no-cache` instead of the 503 page; with Craft down, `/api` and `_payload.json` answers stored within it come with `X-Cache: STALE`',
    },
    pageCache: {
      name: 'PAGE_CACHE',
      kind: 'boolean',
      default: true,
      description: 'keep whole rendered pages (200, and the one 404 page; never previews)',
      effect: '`false`: every page answers `X-Cache: BYPASS`; `true`: `MISS`, then `HIT`',
    },
    pageCacheFastPath: {
      name: 'PAGE_CACHE_FAST_PATH',
      kind: 'boolean',
      default: true,
      description:
        'answer page-cache hits before Fastify routes the request (the stored bytes, in brotli or gzip once encoded off the event loop; the stored headers); `false` sends them through the full route, for comparison in `npm run bench`',
      effect: 'the answers are the same either way (`X-Cache: HIT`); the difference is in requests per second (`npm run bench`) and CPU per hit',
    },
    queryCache: {
      name: 'QUERY_CACHE',
      kind: 'boolean',
      default: true,
      description: '`false` sends every query to the CMS (for measurements)',
      effect: '`false`: `upstream_request_duration_seconds_count` on `/metrics` grows with every page render, and `_payload.json` is never `X-Cache: HIT`',
    },
    pageMaxEntries: {
      name: 'PAGE_CACHE_MAX_ENTRIES',
      kind: 'integer',
      default: DEFAULT_PAGE_CACHE_MAX_ENTRIES,
      min: 1,
      max: 1_000_000,
      description:
        "page cache: most pages; 7/8 for the sitemap's pages and the 404 page, 1/8 for any other page (aliases), so no other key evicts a sitemap page",
      effect: '`page_cache_entries` on `/metrics`',
    },
    pageMaxBytes: {
      name: 'PAGE_CACHE_MAX_BYTES',
      kind: 'integer',
      default: DEFAULT_PAGE_CACHE_MAX_BYTES,
      min: 1024,
      max: MAX_BYTES,
      description: 'page cache: most bytes (a page, the compressed copies made of it, its headers and tags), shared 7/8 and 1/8 as the entries',
      effect: '`page_cache_bytes` on `/metrics`',
    },
    pageTtlMs: {
      name: 'PAGE_CACHE_TTL_MS',
      kind: 'integer',
      default: 30_000,
      min: 0,
      max: 86_400_000,
      description:
        'how long a stored page stays fresh; after it, it is served stale for `CACHE_SWR_MS` (at once, `X-Cache: STALE`) while one background render refreshes it, and kept for `CACHE_STALE_IF_ERROR_MS` to stand in while no renderer answers. With `REDIS_URL` and `RENDER_SECRET`, also how long it is kept in Redis. `0`: every request renders',
      effect: '`X-Cache: HIT` for this long after a page was stored, then `STALE` while it is rendered again; `s-maxage={PAGE_CACHE_TTL_MS/1000}` in the stored page\'s `Cache-Control`',
    },
    pageRenderWaitMs: {
      name: 'PAGE_RENDER_WAIT_MS',
      kind: 'integer',
      default: 3000,
      min: 0,
      max: 120_000,
      description:
        'single flight for renders: a miss of a page that another request is rendering (in this gateway, or with `REDIS_URL` in another) waits this long for that render instead of rendering it too (see [caching](caching.md#single-flight-for-renders)); `0`: every miss renders',
      effect: '`page_render_waits_total{outcome="over|again|failed|timeout"}` on `/metrics`; `timeout` counts the waits that ran out',
    },
    pageRefreshConcurrency: {
      name: 'PAGE_REFRESH_CONCURRENCY',
      kind: 'integer',
      default: DEFAULT_PAGE_REFRESH_CONCURRENCY,
      min: 1,
      max: 1000,
      description:
        "background renders of stored pages past their freshness or marked stale by a soft purge that run at once (the visitor got the stored page with `X-Cache: STALE`); they store the page as a visitor's render does, in Redis too (see [caching](caching.md#background-refreshes))",
      effect: '`page_refreshes_in_flight` on `/metrics` never exceeds it',
    },
    pageRefreshQueue: {
      name: 'PAGE_REFRESH_QUEUE',
      kind: 'integer',
      default: DEFAULT_PAGE_REFRESH_QUEUE,
      min: 0,
      max: 1_000_000,
      description: 'background refreshes that may wait for those; past it a page stays stale (still served at once) until its next request asks again',
      effect: '`page_refreshes_waiting` on `/metrics`; `page_refreshes_total{outcome="refused"}` counts those the full queue turned away',
    },
    apiMaxEntries: {
      name: 'API_CACHE_MAX_ENTRIES',
      kind: 'integer',
      default: 1000,
      min: 1,
      max: 1_000_000,
      description: "`/api` answers: most entries (kept apart from the pages' data, in this gateway's memory only, never in Redis)",
      effect: '`cache_lookups_total{cache="api"}` on `/metrics`: `MISS` rising for requests asked before means it is too small',
    },
    apiMaxBytes: {
      name: 'API_CACHE_MAX_BYTES',
      kind: 'integer',
      default: 16 * 1024 * 1024,
      min: 1024,
      max: MAX_BYTES,
      description: '`/api` answers: most bytes',
      effect: 'as `API_CACHE_MAX_ENTRIES`',
    },
  },
  purgeSecret: {
    name: 'PURGE_SECRET',
    kind: 'secret',
    minLength: 1,
    description: 'secret of `POST /api/purge` (header `x-purge-secret`); unset = no purge endpoint',
    effect: 'unset: `POST /api/purge` answers 404; set: 401 without the right `x-purge-secret`, and the log line `cache purged` with it',
  },
  sitemapMaxUrls: {
    name: 'SITEMAP_MAX_URLS',
    kind: 'integer',
    default: SITEMAP_PROTOCOL_MAX_URLS,
    min: 1,
    max: SITEMAP_PROTOCOL_MAX_URLS,
    description: 'addresses in one child of the sitemap index at most (`/sitemap.xml` lists a child per section, split at this many)',
    effect: 'the number of `<loc>` in each child sitemap `/sitemap.xml` lists',
  },
})
