import type { RedirectRule } from '../shared/build-meta.ts'
import { DEFAULT_SITE_HANDLE, SITEMAP_PROTOCOL_MAX_URLS } from '../shared/constants.ts'
import {
  ConfigError,
  type Env,
  type LogFormat,
  type LogLevel,
  readBoolean,
  readInteger,
  readLogFormat,
  readLogLevel,
  readOptionalSecret,
  readSecret,
  readOptionalString,
  readOptionalUrl,
  readString,
  readUrl,
  readUrlList,
} from '../shared/env.ts'
import { type CraftVersion, DEFAULT_CRAFT_VERSION, parseCraftVersion } from '../shared/craft-naming.ts'
import { RENDER_SECRET_MIN_LENGTH } from '../shared/render-signature.ts'
import { SITE_HANDLE_PATTERN } from '../shared/sections.ts'
import { EMBEDDED_ASSETS_PATH } from './embedded-cms/assets.ts'
import type { LiveSocketOptions } from './embedded-cms/live-updates.ts'
import { DEFAULT_CLIENT_IPV6_PREFIX_BITS } from './http/client-key.ts'
import { checkProxyAddress, type TrustProxy } from './http/trust-proxy.ts'
import { parseRedirects } from './pages/redirects.ts'

/**
 * Brotli quality for answers compressed as they go out. Measured on the home
 * page (docs/performance.md, issue 17): quality 4 made scenario 4 with
 * `Accept-Encoding: br` 0.68-0.73 of scenario 4 without, at 217 µs a page.
 * Quality 0 costs about a fifth less than 1 on five pages (35-66 µs a page
 * against 46-95 µs) for 1.4% more bytes at most (the home page came out
 * smaller); see there for the figures. Stored pages have their own stronger
 * variants (cache/page-cache.ts).
 */
const DEFAULT_FRESH_BROTLI_QUALITY = 0
const DEFAULT_FRESH_GZIP_LEVEL = 6
/**
 * Work units (a render, a CMS call) one client may spend per window. A crawler
 * fetching the 39 pages of the sitemap and their payloads on a cold cache
 * spends some 85 (test/gateway/admission-budget.test.ts); 300 leaves room for
 * three such crawls a minute, or a crawl and some 40 previews (a preview is a
 * render and its 4 or 5 CMS calls).
 */
const DEFAULT_CLIENT_WORK_BUDGET = 300
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
 * @fastify/compress compresses a whole answer in one call up to its
 * syncThreshold, which it derives from the cores it sees: 8,192 bytes on two,
 * so a 27 KB fresh page took the stream path there, at 1.5 to 2.3 times the
 * CPU of one call. Pages are up to some 60 KB: one call for each.
 */
const DEFAULT_COMPRESS_SYNC_THRESHOLD_BYTES = 64 * 1024
/** graphql-ws's connectionInitWaitTimeout for /cms/live: an editor's browser sends connection_init at once. */
const LIVE_INIT_TIMEOUT_MS = 5000
/**
 * Pings on /cms/live; deploy/nginx.conf's proxy_read_timeout for that
 * location (30 s) is a little longer, so a live socket is never idle there.
 */
const LIVE_PING_INTERVAL_MS = 20_000

export interface GatewayConfig {
  host: string
  port: number
  /** Where /readyz and /metrics are served: a listener of its own that nothing public routes to. */
  internalHost: string
  internalPort: number
  /** How long a readiness result is kept, so probes cannot multiply calls to the CMS, renderers and Redis. */
  readinessCacheMs: number
  /**
   * Behind a load balancer or CDN: whose X-Forwarded-For and -Proto to
   * believe (client address for rate limits, HTTPS for HSTS).
   */
  trustProxy: TrustProxy
  /** How many leading bits of an IPv6 address are one client for every per-client budget (an IPv4 address is one client). */
  clientIpv6PrefixBits: number
  /** Where the renderer(s) listen. */
  rendererUrls: URL[]
  /** How often each renderer's /healthz is checked (a failing one is skipped until it passes). */
  rendererProbeIntervalMs: number
  /** How often host names in RENDERER_URL are resolved again. */
  rendererDnsRefreshMs: number
  /** Shared with the renderers: every render request carries its signature. Unset = unsigned (renderers on a private network only). */
  renderSecret: string | undefined
  /** A real Craft GraphQL endpoint; undefined = the embedded content API. */
  craftApiUrl: URL | undefined
  /** The site's default access token, sent as X-Craft-Token when no preview token applies. */
  craftToken: string | undefined
  /** Craft's schema token, sent as `Authorization: Bearer`. */
  craftSchemaToken: string | undefined
  /** The Craft major whose type names the documents use until introspection tells (and when it is off). */
  craftVersion: CraftVersion
  /** Ask Craft for its schema at start-up: the naming to use, and which operations it would refuse. */
  craftIntrospection: boolean
  /** First pause before asking again when Craft could not be asked or refused some operations (doubles up to a minute). */
  craftSchemaRetryMs: number
  /** Whose naming the embedded content API imitates. */
  embeddedCraftVersion: CraftVersion
  /** The embedded content API's own listener on 127.0.0.1, which nothing public routes to; 0 = any free port. */
  embeddedCmsPort: number
  /** The embedded CMS's live preview sockets on /cms/live: how long one may take to say who it is, how often it is pinged, and how many there may be. */
  live: LiveSocketOptions
  siteHandle: string
  siteUrl: URL
  logLevel: LogLevel
  /** JSON lines, or one readable line per request for people at a terminal. */
  logFormat: LogFormat
  upstream: {
    connectTimeoutMs: number
    headersTimeoutMs: number
    bodyTimeoutMs: number
    connections: number
  }
  renderTimeoutMs: number
  /**
   * Hand the page's payload to the renderer with the render request; false:
   * the renderer fetches it (renderers older than this gateway, during a
   * rolling upgrade; and for comparison in the bench).
   */
  renderWithPayload: boolean
  /**
   * Answers compressed as they go out (fresh pages, JSON): brotli quality
   * and gzip level, and the largest whole answer compressed in one call on
   * the event loop instead of a stream on the threadpool.
   */
  compression: { brotliQuality: number; gzipLevel: number; syncThresholdBytes: number }
  cache: {
    maxEntries: number
    maxBytes: number
    ttlMs: number
    staleWhileRevalidateMs: number
    staleIfErrorMs: number
    pageCache: boolean
    /** Page-cache hits answered before Fastify routes the request (off only to measure what that buys). */
    pageCacheFastPath: boolean
    /** Off: every query goes to the CMS (for measuring what the cache gives). */
    queryCache: boolean
    pageMaxEntries: number
    pageMaxBytes: number
    pageTtlMs: number
    /**
     * How long a miss waits for another request's render of the same page
     * (one render per page key at a time in a gateway); past it, the stale
     * page or a render of its own. 0: every miss renders.
     */
    pageRenderWaitMs: number
    /** The answers of /api, kept apart from the pages' data (in memory only, never in Redis), so /api callers cannot evict pages. */
    apiMaxEntries: number
    apiMaxBytes: number
  }
  /** Origins that may frame the site (Craft's live preview); by default the origin of CRAFT_API_URL. */
  frameAncestors: string[]
  /** Extra addresses the browser may connect to (the live preview WebSocket). */
  connectSources: string[]
  /** Extra origins of the CMS's assets (ASSET_ORIGINS: a CDN in front of Craft's volumes). */
  assetOrigins: string[]
  /**
   * Where pages may load images from besides the site itself (img-src): the
   * origin of CRAFT_API_URL and ASSET_ORIGINS, or with the embedded content
   * API the origin of EMBEDDED_ASSET_URL.
   */
  imageSources: string[]
  /** The absolute base URL of the embedded content's asset volume, as browsers reach it (no trailing slash). */
  embeddedAssetUrl: string
  /** Redirects from configuration (the CMS adds its own). */
  redirects: RedirectRule[]
  purgeSecret: string | undefined
  /** The shared cache tier and purge fan-out across gateways; no url = in-memory caches only. */
  redis: {
    url: URL | undefined
    /** Longest wait for one Redis command before the gateway goes on without it. */
    commandTimeoutMs: number
    /** How long one gateway may hold the lock of a key while it asks the CMS; the others wait at most this long. */
    lockMs: number
    keyPrefix: string
  }
  /**
   * Requests per client address and window: on /api, failed purges, and
   * previews (pages and payloads built with a preview token, which bypass
   * every cache; a render's own payload requests count as part of it).
   */
  rateLimit: { apiMax: number; purgeMax: number; previewMax: number; windowMs: number }
  /**
   * The one admission of uncached work (gateway/admission/): each client's
   * budget of work units per RATE_LIMIT_WINDOW_MS (a render, a CMS call),
   * and what one gateway may have in flight to the CMS and to each renderer,
   * with a short, bounded queue in front of both.
   */
  admission: {
    clientWorkBudget: number
    /** Clients whose budgets are remembered at once (the one unseen longest is forgotten first). */
    maxClients: number
    cmsConcurrency: number
    renderConcurrency: number
    queueMs: number
    queueLength: number
  }
  /** Longest time a client may take to send a whole request (then 408). */
  requestTimeoutMs: number
  /** Longest time a client may take to send a request's headers (then 408). */
  headersTimeoutMs: number
  /** Longest time an answer under way may make no progress (a client that stopped reading): then its connection is cut. */
  sendTimeoutMs: number
  maxBodyBytes: number
  /** Id of this build, from dist/build.json unless set. */
  buildId: string | undefined
  /** Folder of built files (client bundle, build.json). */
  distDir: string
  publicDir: string
  /** Content files of the embedded content API. */
  contentDir: string
  /** Addresses in one child of the sitemap index at most (the protocol's 50,000; smaller in tests). */
  sitemapMaxUrls: number
  /** The embedded content's asset volume, served under /cms-assets/ when the embedded API is on. */
  embeddedAssetDir: string
  /**
   * `npm run dev` only: a file whose content changes when open pages should
   * reload (a service was rebuilt and is ready). Set, the gateway streams it
   * on DEV_RELOAD_PATH, names it in every answer's Server-Timing, and serves
   * the built client files as they appear; unset, none of that.
   */
  devReloadFile: string | undefined
}

function readOriginList(env: Env, name: string): string[] | undefined {
  const value = readOptionalString(env, name)
  if (value === undefined) return undefined
  return value.split(',').map((part) => {
    const origin = part.trim()
    if (!/^(https?|wss?):\/\/[A-Za-z0-9.-]+(:\d+)?$/.test(origin)) throw new ConfigError(`${name}: "${origin}" is not an origin such as https://cms.example.nl`)
    return origin
  })
}

/** An absolute http(s) base URL for asset paths: no query or fragment; kept without its trailing slash. */
function readAssetBaseUrl(env: Env, name: string, fallback: string): string {
  const url = readUrl(env, name, fallback)
  if (url.search !== '' || url.hash !== '') throw new ConfigError(`${name}="${url.href}" must be a base URL without ? or #`)
  return url.href.replace(/\/+$/, '')
}

function readCraftVersion(env: Env, name: string): CraftVersion {
  const value = readOptionalString(env, name)
  if (value === undefined) return DEFAULT_CRAFT_VERSION
  const version = parseCraftVersion(value)
  if (version === undefined) throw new ConfigError(`${name}="${value}" must be 4 or 5`)
  return version
}

/** A hop count or a list of proxy addresses; `true` would let every client pick its own address for the rate limits. */
function readTrustProxy(env: Env): TrustProxy {
  const value = readOptionalString(env, 'TRUST_PROXY')
  if (value === undefined || /^(false|no|off)$/i.test(value)) return { hops: 0 }
  if (/^(true|yes|on)$/i.test(value)) {
    throw new ConfigError(
      `TRUST_PROXY=${value} would believe any client's X-Forwarded-For: give the number of proxies in front of the gateway (TRUST_PROXY=1 behind one nginx) or their addresses (TRUST_PROXY=10.0.0.5,172.16.0.0/12)`,
    )
  }
  if (/^[0-9]+$/.test(value)) return { hops: readInteger(env, 'TRUST_PROXY', 0, 0, 10) }
  const addresses = value.split(',').map((part) => part.trim())
  for (const address of addresses) {
    try {
      checkProxyAddress(address)
    } catch {
      throw new ConfigError(`TRUST_PROXY: "${address}" is neither a hop count nor an IP address or CIDR such as 10.0.0.0/8`)
    }
  }
  return { addresses }
}

function readRedisUrl(env: Env): URL | undefined {
  const value = readOptionalString(env, 'REDIS_URL')
  if (value === undefined) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`REDIS_URL="${value}" is not a URL`)
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new ConfigError(`REDIS_URL="${value}" must be redis:// or rediss://`)
  return url
}

/** Node requires the headers' timeout to be no longer than the whole request's. */
function readRequestTimeouts(env: Env): { requestTimeoutMs: number; headersTimeoutMs: number } {
  const requestTimeoutMs = readInteger(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000)
  const headersTimeoutMs = readInteger(env, 'HEADERS_TIMEOUT_MS', Math.min(15_000, requestTimeoutMs), 100, 600_000)
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError(`HEADERS_TIMEOUT_MS=${headersTimeoutMs} must not exceed REQUEST_TIMEOUT_MS=${requestTimeoutMs}`)
  return { requestTimeoutMs, headersTimeoutMs }
}

/** Dev mode's reload signal; refused where NODE_ENV says production, so a copied dev setting cannot reach a live site. */
function readDevReloadFile(env: Env): string | undefined {
  const file = readOptionalString(env, 'DEV_RELOAD_FILE')
  if (file !== undefined && env.NODE_ENV === 'production') throw new ConfigError('DEV_RELOAD_FILE is for `npm run dev` only and is refused with NODE_ENV=production')
  return file
}

export function loadGatewayConfig(env: Env = process.env): GatewayConfig {
  const craftApiUrl = readOptionalUrl(env, 'CRAFT_API_URL')
  const siteHandle = readString(env, 'SITE_HANDLE', DEFAULT_SITE_HANDLE, SITE_HANDLE_PATTERN)
  const siteUrl = readUrl(env, 'SITE_URL', 'http://localhost:3000')
  const assetOrigins = readOriginList(env, 'ASSET_ORIGINS') ?? []
  const embeddedAssetUrl = readAssetBaseUrl(env, 'EMBEDDED_ASSET_URL', `${siteUrl.href.replace(/\/+$/, '')}${EMBEDDED_ASSETS_PATH}`)
  const imageSources = [...new Set([...(craftApiUrl ? [craftApiUrl.origin] : [new URL(embeddedAssetUrl).origin]), ...assetOrigins])]
  return {
    host: readString(env, 'HOST', '0.0.0.0'),
    port: readInteger(env, 'PORT', 3000, 0, 65535),
    internalHost: readString(env, 'INTERNAL_HOST', '127.0.0.1'),
    internalPort: readInteger(env, 'INTERNAL_PORT', 3100, 0, 65535),
    readinessCacheMs: readInteger(env, 'READINESS_CACHE_MS', 2000, 0, 60_000),
    trustProxy: readTrustProxy(env),
    clientIpv6PrefixBits: readInteger(env, 'CLIENT_IPV6_PREFIX', DEFAULT_CLIENT_IPV6_PREFIX_BITS, 16, 128),
    rendererUrls: readUrlList(env, 'RENDERER_URL', 'http://127.0.0.1:3001'),
    rendererProbeIntervalMs: readInteger(env, 'RENDERER_PROBE_INTERVAL_MS', 2000, 100, 60_000),
    rendererDnsRefreshMs: readInteger(env, 'RENDERER_DNS_REFRESH_MS', 5000, 100, 300_000),
    renderSecret: readSecret(env, 'RENDER_SECRET', RENDER_SECRET_MIN_LENGTH, 'REQUIRE_RENDER_SECRET'),
    craftApiUrl,
    craftToken: readOptionalString(env, 'CRAFT_TOKEN'),
    craftSchemaToken: readOptionalString(env, 'CRAFT_SCHEMA_TOKEN'),
    craftVersion: readCraftVersion(env, 'CRAFT_VERSION'),
    craftIntrospection: readBoolean(env, 'CRAFT_INTROSPECTION', true),
    craftSchemaRetryMs: readInteger(env, 'CRAFT_SCHEMA_RETRY_MS', 1000, 10, 600_000),
    embeddedCraftVersion: readCraftVersion(env, 'EMBEDDED_CRAFT_VERSION'),
    embeddedCmsPort: readInteger(env, 'EMBEDDED_CMS_PORT', 0, 0, 65535),
    live: {
      initTimeoutMs: readInteger(env, 'LIVE_INIT_TIMEOUT_MS', LIVE_INIT_TIMEOUT_MS, 10, 60_000),
      pingIntervalMs: readInteger(env, 'LIVE_PING_INTERVAL_MS', LIVE_PING_INTERVAL_MS, 10, 300_000),
      maxSubscriptionsPerSocket: readInteger(env, 'LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET', 8, 1, 1000),
      maxSocketsPerClient: readInteger(env, 'LIVE_MAX_SOCKETS_PER_CLIENT', 4, 1, 10_000),
      maxSockets: readInteger(env, 'LIVE_MAX_SOCKETS', 500, 1, 100_000),
    },
    siteHandle,
    siteUrl,
    logLevel: readLogLevel(env),
    logFormat: readLogFormat(env, process.stdout.isTTY === true),
    upstream: {
      connectTimeoutMs: readInteger(env, 'UPSTREAM_CONNECT_TIMEOUT_MS', 2000, 10, 60_000),
      headersTimeoutMs: readInteger(env, 'UPSTREAM_HEADERS_TIMEOUT_MS', 8000, 10, 120_000),
      bodyTimeoutMs: readInteger(env, 'UPSTREAM_BODY_TIMEOUT_MS', 8000, 10, 120_000),
      connections: readInteger(env, 'UPSTREAM_CONNECTIONS', 32, 1, 1024),
    },
    renderTimeoutMs: readInteger(env, 'RENDER_TIMEOUT_MS', 15_000, 100, 120_000),
    renderWithPayload: readBoolean(env, 'RENDER_WITH_PAYLOAD', true),
    compression: {
      brotliQuality: readInteger(env, 'FRESH_BROTLI_QUALITY', DEFAULT_FRESH_BROTLI_QUALITY, 0, 11),
      gzipLevel: readInteger(env, 'FRESH_GZIP_LEVEL', DEFAULT_FRESH_GZIP_LEVEL, 1, 9),
      syncThresholdBytes: readInteger(env, 'COMPRESS_SYNC_THRESHOLD_BYTES', DEFAULT_COMPRESS_SYNC_THRESHOLD_BYTES, 0, 16 * 1024 * 1024),
    },
    cache: {
      maxEntries: readInteger(env, 'CACHE_MAX_ENTRIES', DEFAULT_QUERY_CACHE_MAX_ENTRIES, 1, 1_000_000),
      maxBytes: readInteger(env, 'CACHE_MAX_BYTES', DEFAULT_QUERY_CACHE_MAX_BYTES, 1024, 8 * 1024 * 1024 * 1024),
      ttlMs: readInteger(env, 'CACHE_TTL_MS', 60_000, 0, 86_400_000),
      staleWhileRevalidateMs: readInteger(env, 'CACHE_SWR_MS', 600_000, 0, 86_400_000),
      staleIfErrorMs: readInteger(env, 'CACHE_STALE_IF_ERROR_MS', 86_400_000, 0, 30 * 86_400_000),
      pageCache: readBoolean(env, 'PAGE_CACHE', true),
      pageCacheFastPath: readBoolean(env, 'PAGE_CACHE_FAST_PATH', true),
      queryCache: readBoolean(env, 'QUERY_CACHE', true),
      pageMaxEntries: readInteger(env, 'PAGE_CACHE_MAX_ENTRIES', DEFAULT_PAGE_CACHE_MAX_ENTRIES, 1, 1_000_000),
      pageMaxBytes: readInteger(env, 'PAGE_CACHE_MAX_BYTES', DEFAULT_PAGE_CACHE_MAX_BYTES, 1024, 8 * 1024 * 1024 * 1024),
      pageTtlMs: readInteger(env, 'PAGE_CACHE_TTL_MS', 30_000, 0, 86_400_000),
      pageRenderWaitMs: readInteger(env, 'PAGE_RENDER_WAIT_MS', 3000, 0, 120_000),
      apiMaxEntries: readInteger(env, 'API_CACHE_MAX_ENTRIES', 1000, 1, 1_000_000),
      apiMaxBytes: readInteger(env, 'API_CACHE_MAX_BYTES', 16 * 1024 * 1024, 1024, 8 * 1024 * 1024 * 1024),
    },
    redirects: parseRedirects(readOptionalString(env, 'REDIRECTS')),
    frameAncestors: readOriginList(env, 'CMS_ORIGIN') ?? (craftApiUrl ? [craftApiUrl.origin] : []),
    connectSources: readOriginList(env, 'CONNECT_SRC') ?? [],
    assetOrigins,
    imageSources,
    embeddedAssetUrl,
    purgeSecret: readOptionalSecret(env, 'PURGE_SECRET', 1),
    redis: {
      url: readRedisUrl(env),
      commandTimeoutMs: readInteger(env, 'REDIS_COMMAND_TIMEOUT_MS', 100, 5, 10_000),
      lockMs: readInteger(env, 'REDIS_LOCK_MS', 5000, 50, 120_000),
      keyPrefix: readString(env, 'REDIS_KEY_PREFIX', `${siteHandle}:`, /^[A-Za-z0-9:_.-]{0,64}$/),
    },
    rateLimit: {
      apiMax: readInteger(env, 'API_RATE_LIMIT', 600, 1, 1_000_000),
      purgeMax: readInteger(env, 'PURGE_RATE_LIMIT', 30, 1, 1_000_000),
      previewMax: readInteger(env, 'PREVIEW_RATE_LIMIT', 120, 1, 1_000_000),
      windowMs: readInteger(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000),
    },
    admission: {
      clientWorkBudget: readInteger(env, 'CLIENT_WORK_BUDGET', DEFAULT_CLIENT_WORK_BUDGET, 1, 1_000_000_000),
      maxClients: readInteger(env, 'ADMISSION_MAX_CLIENTS', 100_000, 100, 10_000_000),
      cmsConcurrency: readInteger(env, 'CMS_CONCURRENCY', 16, 1, 1024),
      renderConcurrency: readInteger(env, 'RENDER_CONCURRENCY', 8, 1, 1024),
      queueMs: readInteger(env, 'ADMISSION_QUEUE_MS', 1500, 0, 60_000),
      queueLength: readInteger(env, 'ADMISSION_QUEUE_LENGTH', 1000, 0, 1_000_000),
    },
    maxBodyBytes: readInteger(env, 'API_MAX_BODY_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    ...readRequestTimeouts(env),
    sendTimeoutMs: readInteger(env, 'SEND_TIMEOUT_MS', 30_000, 100, 600_000),
    buildId: readOptionalString(env, 'BUILD_ID'),
    distDir: readString(env, 'DIST_DIR', new URL('../dist', import.meta.url).pathname),
    publicDir: readString(env, 'PUBLIC_DIR', new URL('../public', import.meta.url).pathname),
    sitemapMaxUrls: readInteger(env, 'SITEMAP_MAX_URLS', SITEMAP_PROTOCOL_MAX_URLS, 1, SITEMAP_PROTOCOL_MAX_URLS),
    contentDir: readString(env, 'CONTENT_DIR', new URL('../gateway/embedded-cms/content', import.meta.url).pathname),
    embeddedAssetDir: new URL('../gateway/embedded-cms/assets', import.meta.url).pathname,
    devReloadFile: readDevReloadFile(env),
  }
}
