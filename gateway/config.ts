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
  readOptionalString,
  readOptionalUrl,
  readString,
  readUrl,
  readUrlList,
  type SettingDoc,
} from '../shared/env.ts'
import { type CraftVersion, DEFAULT_CRAFT_VERSION, parseCraftVersion } from '../shared/craft-naming.ts'
import { readRenderSecret } from '../shared/render-protocol/index.ts'
import { SITE_HANDLE_PATTERN } from '../shared/sections.ts'
import { EMBEDDED_ASSETS_PATH } from './embedded-cms/assets.ts'
import type { LiveSocketOptions } from './embedded-cms/live-updates.ts'
import { DEFAULT_CLIENT_IPV6_PREFIX_BITS } from './http/client-key.ts'
import { checkProxyAddress, type TrustProxy } from './http/trust-proxy.ts'
import { parseRedirects } from './pages/redirects.ts'

/**
 * Brotli quality for answers compressed as they go out. Measured on the home
 * page (docs/performance-history.md, issue 17): quality 4 made scenario 4 with
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
const DEFAULT_PAGE_CACHE_MAX_ENTRIES = 25_000
const DEFAULT_PAGE_CACHE_MAX_BYTES = 640 * 1024 * 1024
/**
 * Background refreshes of stale pages (cache/page-refreshes.ts): two at once
 * keep a renderer busy without taking the visitors' turn (a visitor's miss
 * waits in the same render queue); 1,000 waiting is a big section's purge
 * (some 200 bytes each), refreshed within a minute or two.
 */
const DEFAULT_PAGE_REFRESH_CONCURRENCY = 2
const DEFAULT_PAGE_REFRESH_QUEUE = 1000
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
  /** How often `@subnet` / `@name` entries of HOST and INTERNAL_HOST are resolved again, so the ports follow a changed address; 0 = only at start. */
  hostRecheckIntervalMs: number
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
    /**
     * Background renders of stored pages past their TTL or marked by a soft
     * purge (cache/page-refreshes.ts): how many run at once, and how many
     * more may wait; past that a page stays stale until its next request.
     */
    pageRefreshConcurrency: number
    pageRefreshQueue: number
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

function readOriginList(env: Env, name: string, doc: SettingDoc): string[] | undefined {
  const value = readOptionalString(env, name, doc)
  if (value === undefined) return undefined
  return value.split(',').map((part) => {
    const origin = part.trim()
    if (!/^(https?|wss?):\/\/[A-Za-z0-9.-]+(:\d+)?$/.test(origin)) throw new ConfigError(`${name}: "${origin}" is not an origin such as https://cms.example.nl`)
    return origin
  })
}

/** An absolute http(s) base URL for asset paths: no query or fragment; kept without its trailing slash. */
function readAssetBaseUrl(env: Env, name: string, fallback: string, doc: SettingDoc): string {
  const url = readUrl(env, name, fallback, doc)
  if (url.search !== '' || url.hash !== '') throw new ConfigError(`${name}="${url.href}" must be a base URL without ? or #`)
  return url.href.replace(/\/+$/, '')
}

function readCraftVersion(env: Env, name: string, doc: SettingDoc): CraftVersion {
  const value = readOptionalString(env, name, { default: `\`${DEFAULT_CRAFT_VERSION}\``, ...doc })
  if (value === undefined) return DEFAULT_CRAFT_VERSION
  const version = parseCraftVersion(value)
  if (version === undefined) throw new ConfigError(`${name}="${value}" must be 4 or 5`)
  return version
}

/** A hop count or a list of proxy addresses; `true` would let every client pick its own address for the rate limits. */
const TRUST_PROXY_DOC: SettingDoc = {
  subject: 'admission',
  meaning:
    "whose `X-Forwarded-For`/`-Proto` the gateway believes, for client addresses (rate limits) and HTTPS (HSTS): the number of proxies in front of it (`1` behind one nginx; the nearest must connect from loopback or a private network), or a comma-separated list of the proxies' addresses or CIDRs (`10.0.0.5,172.16.0.0/12`; `loopback`, `uniquelocal` also work). `false`, `0` or unset: none. `true` (believe anyone) is refused at start",
  default: 'unset (none)',
  values: '`0`–`10`, or addresses and CIDRs, comma-separated',
}

function readTrustProxy(env: Env): TrustProxy {
  const value = readOptionalString(env, 'TRUST_PROXY', TRUST_PROXY_DOC)
  if (value === undefined || /^(false|no|off)$/i.test(value)) return { hops: 0 }
  if (/^(true|yes|on)$/i.test(value)) {
    throw new ConfigError(
      `TRUST_PROXY=${value} would believe any client's X-Forwarded-For: give the number of proxies in front of the gateway (TRUST_PROXY=1 behind one nginx) or their addresses (TRUST_PROXY=10.0.0.5,172.16.0.0/12)`,
    )
  }
  if (/^[0-9]+$/.test(value)) return { hops: readInteger(env, 'TRUST_PROXY', 0, 0, 10, TRUST_PROXY_DOC) }
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
  const value = readOptionalString(env, 'REDIS_URL', {
    subject: 'redis',
    meaning:
      '`redis://` or `rediss://` address of a Redis shared by several gateways (see [caching](caching.md#several-gateways-the-shared-tier-on-redis)); unset = in-memory caches only, and no Redis code runs',
    values: 'a `redis://` or `rediss://` URL',
  })
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
  const requestTimeoutMs = readInteger(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000, {
    subject: 'admission',
    meaning: 'longest time a client may take to send a whole request; then 408 and the connection closes',
  })
  const headersTimeoutMs = readInteger(env, 'HEADERS_TIMEOUT_MS', Math.min(15_000, requestTimeoutMs), 100, 600_000, {
    subject: 'admission',
    meaning: 'longest time a client may take to send its headers; then 408 and the connection closes. At most `REQUEST_TIMEOUT_MS`',
    default: '`15000` (at most `REQUEST_TIMEOUT_MS`)',
  })
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError(`HEADERS_TIMEOUT_MS=${headersTimeoutMs} must not exceed REQUEST_TIMEOUT_MS=${requestTimeoutMs}`)
  return { requestTimeoutMs, headersTimeoutMs }
}

/** Dev mode's reload signal; refused where NODE_ENV says production, so a copied dev setting cannot reach a live site. */
function readDevReloadFile(env: Env): string | undefined {
  const file = readOptionalString(env, 'DEV_RELOAD_FILE', {
    subject: 'development',
    meaning:
      'dev only: a file whose content changes when open pages should reload; set, the gateway streams it at `/__dev/reload`, adds `Server-Timing: dev-generation` to every answer and serves the client files as they are rebuilt. Refused with `NODE_ENV=production`',
    default: 'unset (set by `npm run dev`)',
    values: 'a file',
  })
  if (file !== undefined && env.NODE_ENV === 'production') throw new ConfigError('DEV_RELOAD_FILE is for `npm run dev` only and is refused with NODE_ENV=production')
  return file
}

export function loadGatewayConfig(env: Env = process.env): GatewayConfig {
  const craftApiUrl = readOptionalUrl(env, 'CRAFT_API_URL', {
    subject: 'craft',
    meaning: 'a real Craft GraphQL endpoint; unset = the embedded content API (see [craft](craft.md))',
  })
  const siteHandle = readString(env, 'SITE_HANDLE', DEFAULT_SITE_HANDLE, {
    subject: 'craft',
    meaning: 'the `{product}` of the section handles and of the Craft site',
  }, SITE_HANDLE_PATTERN)
  const siteUrl = readUrl(env, 'SITE_URL', 'http://localhost:3000', {
    subject: 'listening',
    meaning: 'the public address of the site',
  })
  const assetOrigins = readOriginList(env, 'ASSET_ORIGINS', {
    subject: 'browser',
    meaning:
      "extra comma-separated origins pages may load images from (`img-src`), e.g. a CDN in front of Craft's asset volumes; the origin of `CRAFT_API_URL` is always allowed",
    values: 'origins, comma-separated',
  }) ?? []
  const embeddedAssetUrl = readAssetBaseUrl(env, 'EMBEDDED_ASSET_URL', `${siteUrl.href.replace(/\/+$/, '')}${EMBEDDED_ASSETS_PATH}`, {
    subject: 'craft',
    meaning:
      "with the embedded content API: the absolute http(s) address at which browsers reach its asset volume (`gateway/embedded-cms/assets/`, which the gateway serves at `/cms-assets/`); its asset URLs are absolute on it, as Craft's are on a volume's base URL, and its origin is allowed in `img-src`",
    default: '`{SITE_URL}/cms-assets`',
  })
  const imageSources = [...new Set([...(craftApiUrl ? [craftApiUrl.origin] : [new URL(embeddedAssetUrl).origin]), ...assetOrigins])]
  return {
    host: readString(env, 'HOST', '0.0.0.0', {
      subject: 'listening',
      meaning:
        "address(es) of the public port, comma-separated; `@10.231.1.0/24` stands for this machine's own address in that subnet, `@name` for its own address among those `name` resolves to (see [operations](operations.md#listening-addresses))",
      values: 'addresses, `@subnet` or `@name`, comma-separated',
    }),
    port: readInteger(env, 'PORT', 3000, 0, 65535, { subject: 'listening', meaning: 'the public port' }),
    hostRecheckIntervalMs: readInteger(env, 'HOST_RECHECK_INTERVAL_MS', 2000, 0, 600_000, {
      subject: 'listening',
      meaning:
        "how often the `@subnet` and `@name` entries of `HOST` and `INTERNAL_HOST` are resolved again: a new address of this machine gets a listener, one no longer this machine's is closed once its requests are done, and the Redis connections start again (see [operations](operations.md#listening-addresses)); 0 = only at start",
    }),
    internalHost: readString(env, 'INTERNAL_HOST', '127.0.0.1', {
      subject: 'listening',
      meaning:
        'address of the internal listener (one; `@subnet` or `@name` as for `HOST`); `@<scrape subnet>` in the containers, so the port answers on the scrape network only',
      values: 'one address, `@subnet` or `@name`',
    }),
    internalPort: readInteger(env, 'INTERNAL_PORT', 3100, 0, 65535, {
      subject: 'listening',
      meaning: "the gateway's internal listener: `GET /readyz`, `GET /metrics`, `GET /healthz`; never published or proxied (0 = any free port)",
    }),
    readinessCacheMs: readInteger(env, 'READINESS_CACHE_MS', 2000, 0, 60_000, {
      subject: 'listening',
      meaning:
        'how long a readiness result is kept: probes within it cost no call to the CMS, renderers or Redis, and probes that arrive together share one check',
    }),
    trustProxy: readTrustProxy(env),
    clientIpv6PrefixBits: readInteger(env, 'CLIENT_IPV6_PREFIX', DEFAULT_CLIENT_IPV6_PREFIX_BITS, 16, 128, {
      subject: 'admission',
      meaning:
        'how many leading bits of an IPv6 address make one client for every per-client limit (`/api`, previews, purge failures, work budget): a client is an IPv4 address or an IPv6 /64; an IPv4-mapped IPv6 address is its IPv4 client',
    }),
    rendererUrls: readUrlList(env, 'RENDERER_URL', 'http://127.0.0.1:3001', {
      subject: 'renderers',
      meaning:
        'the renderer(s), comma-separated; a host name counts once per address it resolves to (`docker compose --scale renderer=3`, Host header kept). Renders go round robin, skipping a renderer that failed until its `/healthz` passes (see [operations](operations.md#renderers-round-robin-and-failures))',
      default: '`http://127.0.0.1:3001` (under `npm start`: from `RENDERER_PORT`)',
    }),
    rendererProbeIntervalMs: readInteger(env, 'RENDERER_PROBE_INTERVAL_MS', 2000, 100, 60_000, {
      subject: 'renderers',
      meaning: "how often each renderer in turn has its `/healthz` checked (2 s timeout), and the longest a skipped renderer's probes back off to",
    }),
    rendererDnsRefreshMs: readInteger(env, 'RENDERER_DNS_REFRESH_MS', 5000, 100, 300_000, {
      subject: 'renderers',
      meaning: 'how often host names in `RENDERER_URL` are resolved again',
    }),
    renderSecret: readRenderSecret(env, {
      subject: 'renderers',
      meaning:
        'secret shared with the renderers: the gateway signs every render request as it sends it (see [security](security.md#signed-render-requests)). Unset: unsigned',
      default: 'unset (under `npm start`: a random one per run)',
    }),
    craftApiUrl,
    craftToken: readOptionalString(env, 'CRAFT_TOKEN', {
      subject: 'craft',
      meaning: "the site's default access token, sent as `X-Craft-Token` when no preview token applies",
    }),
    craftSchemaToken: readOptionalString(env, 'CRAFT_SCHEMA_TOKEN', {
      subject: 'craft',
      meaning: "Craft's schema token, sent as `Authorization: Bearer …`; the embedded API then requires it",
    }),
    craftVersion: readCraftVersion(env, 'CRAFT_VERSION', {
      subject: 'craft',
      meaning: "the Craft major whose type names to use until Craft's schema says otherwise (and always with introspection off): `5` or `4`",
      values: '`5`, `4`',
    }),
    craftIntrospection: readBoolean(env, 'CRAFT_INTROSPECTION', true, {
      subject: 'craft',
      meaning:
        'ask Craft for its schema at start-up (naming, and which documents it would refuse); `false` for a Craft with `enableGraphqlIntrospection` off',
    }),
    craftSchemaRetryMs: readInteger(env, 'CRAFT_SCHEMA_RETRY_MS', 1000, 10, 600_000, {
      subject: 'craft',
      meaning:
        'first pause before asking Craft for its schema again when it could not be asked, refused the token or refused documents (doubles up to 60 s)',
    }),
    embeddedCraftVersion: readCraftVersion(env, 'EMBEDDED_CRAFT_VERSION', {
      subject: 'craft',
      meaning: 'whose naming the embedded content API imitates: `5` or `4`',
      values: '`5`, `4`',
    }),
    embeddedCmsPort: readInteger(env, 'EMBEDDED_CMS_PORT', 0, 0, 65535, {
      subject: 'craft',
      meaning: "without `CRAFT_API_URL`: port of the embedded content API's own listener on 127.0.0.1 (`0`: a free port)",
      default: '`0` (a free port)',
    }),
    live: {
      initTimeoutMs: readInteger(env, 'LIVE_INIT_TIMEOUT_MS', LIVE_INIT_TIMEOUT_MS, 10, 60_000, {
        subject: 'browser',
        meaning: "`/cms/live`: a socket that has not sent `connection_init` by then is closed with 4408 (graphql-ws's `connectionInitWaitTimeout`)",
      }),
      pingIntervalMs: readInteger(env, 'LIVE_PING_INTERVAL_MS', LIVE_PING_INTERVAL_MS, 10, 300_000, {
        subject: 'browser',
        meaning:
          "`/cms/live`: WebSocket pings this often; a peer that has not answered the last one by the next is cut off. `deploy/nginx.conf`'s `proxy_read_timeout` for `/cms/live` (30 s) must stay a little longer",
      }),
      maxSubscriptionsPerSocket: readInteger(env, 'LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET', 8, 1, 1000, {
        subject: 'browser',
        meaning: '`/cms/live`: subscriptions one socket may hold; one more is answered with an error (`TOO_MANY_SUBSCRIPTIONS`) and the socket stays',
      }),
      maxSocketsPerClient: readInteger(env, 'LIVE_MAX_SOCKETS_PER_CLIENT', 4, 1, 10_000, {
        subject: 'browser',
        meaning:
          '`/cms/live`: open sockets of one client (an IPv4 address or IPv6 prefix, `CLIENT_IPV6_PREFIX`); one more is refused with 429 before the upgrade',
      }),
      maxSockets: readInteger(env, 'LIVE_MAX_SOCKETS', 500, 1, 100_000, {
        subject: 'browser',
        meaning: '`/cms/live`: open sockets of one gateway; one more is refused with 503',
      }),
    },
    siteHandle,
    siteUrl,
    logLevel: readLogLevel(env),
    logFormat: readLogFormat(env, process.stdout.isTTY === true),
    upstream: {
      connectTimeoutMs: readInteger(env, 'UPSTREAM_CONNECT_TIMEOUT_MS', 2000, 10, 60_000, {
        subject: 'craft',
        meaning: 'connecting to Craft',
      }),
      headersTimeoutMs: readInteger(env, 'UPSTREAM_HEADERS_TIMEOUT_MS', 8000, 10, 120_000, {
        subject: 'craft',
        meaning:
          "waiting for Craft's answer (then 504); a page waits for at most one of these: a redirect lookup that must ask Craft runs alongside the render, and an error page takes its layout data from the cache only",
      }),
      bodyTimeoutMs: readInteger(env, 'UPSTREAM_BODY_TIMEOUT_MS', 8000, 10, 120_000, {
        subject: 'craft',
        meaning: "between body chunks of Craft's answer",
      }),
      connections: readInteger(env, 'UPSTREAM_CONNECTIONS', 32, 1, 1024, {
        subject: 'craft',
        meaning: "keep-alive connections to Craft (the pool's sockets; how many calls may be in flight is `CMS_CONCURRENCY`)",
      }),
    },
    renderTimeoutMs: readInteger(env, 'RENDER_TIMEOUT_MS', 15_000, 100, 120_000, {
      subject: 'renderers',
      meaning: 'how long the gateway waits for a renderer',
    }),
    compression: {
      brotliQuality: readInteger(env, 'FRESH_BROTLI_QUALITY', DEFAULT_FRESH_BROTLI_QUALITY, 0, 11, {
        subject: 'compression',
        meaning:
          'brotli quality of answers compressed as they go out: fresh pages and JSON (stored pages keep their own brotli 5, made off the event loop); chosen by measurement in [performance](performance.md)',
      }),
      gzipLevel: readInteger(env, 'FRESH_GZIP_LEVEL', DEFAULT_FRESH_GZIP_LEVEL, 1, 9, {
        subject: 'compression',
        meaning: 'gzip level of the same answers, for clients without brotli',
      }),
      syncThresholdBytes: readInteger(env, 'COMPRESS_SYNC_THRESHOLD_BYTES', DEFAULT_COMPRESS_SYNC_THRESHOLD_BYTES, 0, 16 * 1024 * 1024, {
        subject: 'compression',
        meaning: 'whole answers up to this size are compressed in one call; larger ones, and streamed pages, through a stream (0: always a stream)',
      }),
    },
    cache: {
      maxEntries: readInteger(env, 'CACHE_MAX_ENTRIES', DEFAULT_QUERY_CACHE_MAX_ENTRIES, 1, 1_000_000, {
        subject: 'caching',
        meaning: 'query cache: most entries',
      }),
      maxBytes: readInteger(env, 'CACHE_MAX_BYTES', DEFAULT_QUERY_CACHE_MAX_BYTES, 1024, 8 * 1024 * 1024 * 1024, {
        subject: 'caching',
        meaning: 'query cache: most bytes',
      }),
      ttlMs: readInteger(env, 'CACHE_TTL_MS', 60_000, 0, 86_400_000, {
        subject: 'caching',
        meaning: 'how long an answer is fresh',
      }),
      staleWhileRevalidateMs: readInteger(env, 'CACHE_SWR_MS', DEFAULT_STALE_WHILE_REVALIDATE_MS, 0, 86_400_000, {
        subject: 'caching',
        meaning:
          'after that, how long it is served stale while one refresh runs; likewise a stored page past `PAGE_CACHE_TTL_MS` (`X-Cache: STALE`) while one background render refreshes it (a day: a page of a big site visited less often than that is still served at once; edits reach it by purges)',
      }),
      staleIfErrorMs: readInteger(env, 'CACHE_STALE_IF_ERROR_MS', 86_400_000, 0, 30 * 86_400_000, {
        subject: 'caching',
        meaning: 'how long a stale answer stands in when Craft fails, and a stored page past its TTL while no renderer answers (`X-Cache: STALE`)',
      }),
      pageCache: readBoolean(env, 'PAGE_CACHE', true, {
        subject: 'caching',
        meaning: 'keep whole rendered pages (200, and the one 404 page; never previews)',
      }),
      pageCacheFastPath: readBoolean(env, 'PAGE_CACHE_FAST_PATH', true, {
        subject: 'caching',
        meaning:
          'answer page-cache hits before Fastify routes the request (the stored bytes, in brotli or gzip once encoded off the event loop; the stored headers); `false` sends them through the full route, for comparison in `npm run bench`',
      }),
      queryCache: readBoolean(env, 'QUERY_CACHE', true, {
        subject: 'caching',
        meaning: '`false` sends every query to the CMS (for measurements)',
      }),
      pageMaxEntries: readInteger(env, 'PAGE_CACHE_MAX_ENTRIES', DEFAULT_PAGE_CACHE_MAX_ENTRIES, 1, 1_000_000, {
        subject: 'caching',
        meaning:
          "page cache: most pages; 7/8 for the sitemap's pages and the 404 page, 1/8 for any other page (aliases), so no other key evicts a sitemap page",
      }),
      pageMaxBytes: readInteger(env, 'PAGE_CACHE_MAX_BYTES', DEFAULT_PAGE_CACHE_MAX_BYTES, 1024, 8 * 1024 * 1024 * 1024, {
        subject: 'caching',
        meaning: 'page cache: most bytes, shared 7/8 and 1/8 as the entries',
      }),
      pageTtlMs: readInteger(env, 'PAGE_CACHE_TTL_MS', 30_000, 0, 86_400_000, {
        subject: 'caching',
        meaning: 'how long a rendered page is served from the page cache',
      }),
      pageRenderWaitMs: readInteger(env, 'PAGE_RENDER_WAIT_MS', 3000, 0, 120_000, {
        subject: 'caching',
        meaning:
          'single flight for renders: a miss of a page that another request is rendering (in this gateway, or with `REDIS_URL` in another) waits this long for that render instead of rendering it too (see [caching](caching.md#single-flight-for-renders)); `0`: every miss renders',
      }),
      pageRefreshConcurrency: readInteger(env, 'PAGE_REFRESH_CONCURRENCY', DEFAULT_PAGE_REFRESH_CONCURRENCY, 1, 1000, {
        subject: 'caching',
        meaning:
          'background renders of stored pages past their TTL or marked stale by a soft purge that run at once (the visitor got the stored page with `X-Cache: STALE`); they store the page as a visitor\'s render does, in Redis too (see [caching](caching.md#background-refreshes))',
      }),
      pageRefreshQueue: readInteger(env, 'PAGE_REFRESH_QUEUE', DEFAULT_PAGE_REFRESH_QUEUE, 0, 1_000_000, {
        subject: 'caching',
        meaning: 'background refreshes that may wait for those; past it a page stays stale (still served at once) until its next request asks again',
      }),
      apiMaxEntries: readInteger(env, 'API_CACHE_MAX_ENTRIES', 1000, 1, 1_000_000, {
        subject: 'caching',
        meaning: "`/api` answers: most entries (kept apart from the pages' data, in this gateway's memory only, never in Redis)",
      }),
      apiMaxBytes: readInteger(env, 'API_CACHE_MAX_BYTES', 16 * 1024 * 1024, 1024, 8 * 1024 * 1024 * 1024, {
        subject: 'caching',
        meaning: '`/api` answers: most bytes',
      }),
    },
    redirects: parseRedirects(readOptionalString(env, 'REDIRECTS', {
      subject: 'listening',
      meaning: 'JSON list of `{"from": "/oud", "to": "/nieuw" or "https://…", "statusCode": 301 or 302}`; the CMS\'s `redirects` section adds more',
      values: 'JSON',
    })),
    frameAncestors: readOriginList(env, 'CMS_ORIGIN', {
      subject: 'browser',
      meaning: "comma-separated origins allowed to frame the site (`frame-ancestors`, for Craft's live preview)",
      default: 'the origin of `CRAFT_API_URL`',
      values: 'origins, comma-separated',
    }) ?? (craftApiUrl ? [craftApiUrl.origin] : []),
    connectSources: readOriginList(env, 'CONNECT_SRC', {
      subject: 'browser',
      meaning: 'extra comma-separated origins the browser may connect to (`connect-src`, e.g. a `GRAPHQL_WS_URL` on another host)',
      values: 'origins, comma-separated',
    }) ?? [],
    assetOrigins,
    imageSources,
    embeddedAssetUrl,
    purgeSecret: readOptionalSecret(env, 'PURGE_SECRET', 1, {
      subject: 'caching',
      meaning: 'secret of `POST /api/purge` (header `x-purge-secret`); unset = no purge endpoint',
    }),
    redis: {
      url: readRedisUrl(env),
      commandTimeoutMs: readInteger(env, 'REDIS_COMMAND_TIMEOUT_MS', 100, 5, 10_000, {
        subject: 'redis',
        meaning: 'longest wait for one Redis command; after that the gateway goes on without Redis',
      }),
      lockMs: readInteger(env, 'REDIS_LOCK_MS', 5000, 50, 120_000, {
        subject: 'redis',
        meaning:
          'how long one gateway may hold the lock of a key while it asks the CMS (renewing its 500 ms lease); the others wait at most this long for it. A lock nobody renews (a gateway that died, a lock command that ran late) lapses within 500 ms',
      }),
      keyPrefix: readString(env, 'REDIS_KEY_PREFIX', `${siteHandle}:`, {
        subject: 'redis',
        meaning: 'prefix of every key and of the purge channel, so sites can share a Redis',
        default: '`{SITE_HANDLE}:`',
      }, /^[A-Za-z0-9:_.-]{0,64}$/),
    },
    rateLimit: {
      apiMax: readInteger(env, 'API_RATE_LIMIT', 600, 1, 1_000_000, {
        subject: 'admission',
        meaning: 'requests one client may make to `/api` per window; then 429',
      }),
      purgeMax: readInteger(env, 'PURGE_RATE_LIMIT', 30, 1, 1_000_000, {
        subject: 'admission',
        meaning:
          'failed purges (wrong or missing secret) one client may make per window, counted from its first failure; then 429 for that client, even with the right secret. Successful purges never count',
      }),
      previewMax: readInteger(env, 'PREVIEW_RATE_LIMIT', 120, 1, 1_000_000, {
        subject: 'admission',
        meaning:
          "previews one client may ask for per window, besides what their renders and CMS calls cost in `CLIENT_WORK_BUDGET`: pages and `_payload.json` built with a preview token, which bypass every cache (then 429, the Dutch page or a JSON error, with `Retry-After`). A renderer's own payload requests for a preview render come with that render; any more are charged to the client who asked for the page",
      }),
      windowMs: readInteger(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000, {
        subject: 'admission',
        meaning: 'the rate-limit window, and the time in which a spent `CLIENT_WORK_BUDGET` is refilled (evenly, unit by unit)',
      }),
    },
    admission: {
      clientWorkBudget: readInteger(env, 'CLIENT_WORK_BUDGET', DEFAULT_CLIENT_WORK_BUDGET, 1, 1_000_000_000, {
        subject: 'admission',
        meaning:
          'work units one client may spend per `RATE_LIMIT_WINDOW_MS` on what no cache answers: each render and each CMS call made for its request (a preview: a render and its 4 or 5 calls; nothing while no renderer is up, as no render is made). Spent, the client gets the stored page if there is one (`X-Cache: STALE`), else 429 with `Retry-After` (the Dutch page; JSON for payloads and `/api`) until it has a unit again; cache hits never cost anything (see [security](security.md))',
      }),
      maxClients: readInteger(env, 'ADMISSION_MAX_CLIENTS', 100_000, 100, 10_000_000, {
        subject: 'admission',
        meaning: 'clients whose budgets one gateway remembers (the one unseen longest is forgotten, with its debt)',
      }),
      cmsConcurrency: readInteger(env, 'CMS_CONCURRENCY', 16, 1, 1024, {
        subject: 'admission',
        meaning:
          "most calls one gateway has in flight to the CMS, of every kind: query-cache misses and refreshes, previews, `/api`, readiness and schema checks. Past it a call waits in the admission queue; one that waited `ADMISSION_QUEUE_MS` is not made (`UPSTREAM_BUSY`): a stored answer stands in, else the page's 503 (a JSON 503 for payloads and `/api`)",
      }),
      renderConcurrency: readInteger(env, 'RENDER_CONCURRENCY', 8, 1, 1024, {
        subject: 'admission',
        meaning:
          'most renders in flight per renderer (in all, this many times the renderers up, taken in turn), a streamed page counting until its last byte; past it a render waits in the admission queue, then the stored page (`X-Cache: STALE`) or the Dutch 503 page',
      }),
      queueMs: readInteger(env, 'ADMISSION_QUEUE_MS', 1500, 0, 60_000, {
        subject: 'admission',
        meaning: "longest wait for a CMS call's or a render's slot",
      }),
      queueLength: readInteger(env, 'ADMISSION_QUEUE_LENGTH', 1000, 0, 1_000_000, {
        subject: 'admission',
        meaning: 'most waiting at once for CMS calls, and for renders (past it refused at once)',
      }),
    },
    maxBodyBytes: readInteger(env, 'API_MAX_BODY_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024, {
      subject: 'admission',
      meaning: 'largest accepted `/api` body (then 413)',
    }),
    ...readRequestTimeouts(env),
    sendTimeoutMs: readInteger(env, 'SEND_TIMEOUT_MS', 30_000, 100, 600_000, {
      subject: 'admission',
      meaning:
        'longest time an answer under way may make no progress (its unsent bytes wait on a client that stopped reading); then the connection is cut. A slow reader is never cut, nor an answer still waiting for its render',
    }),
    buildId: readOptionalString(env, 'BUILD_ID', {
      subject: 'listening',
      meaning: 'overrides the build id',
      default: 'from `dist/build.json`',
    }),
    distDir: readString(env, 'DIST_DIR', new URL('../dist', import.meta.url).pathname, {
      subject: 'listening',
      meaning: 'the build output (the renderer reads `DIST_DIR` too)',
      default: '`dist`',
    }),
    publicDir: readString(env, 'PUBLIC_DIR', new URL('../public', import.meta.url).pathname, {
      subject: 'listening',
      meaning: 'the static assets',
      default: '`public`',
    }),
    sitemapMaxUrls: readInteger(env, 'SITEMAP_MAX_URLS', SITEMAP_PROTOCOL_MAX_URLS, 1, SITEMAP_PROTOCOL_MAX_URLS, {
      subject: 'caching',
      meaning: 'addresses in one child of the sitemap index at most (`/sitemap.xml` lists a child per section, split at this many)',
    }),
    contentDir: readString(env, 'CONTENT_DIR', new URL('../gateway/embedded-cms/content', import.meta.url).pathname, {
      subject: 'craft',
      meaning: 'the embedded content files',
      default: '`gateway/embedded-cms/content`',
    }),
    embeddedAssetDir: new URL('../gateway/embedded-cms/assets', import.meta.url).pathname,
    devReloadFile: readDevReloadFile(env),
  }
}
