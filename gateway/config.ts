import { DEFAULT_SITE_HANDLE } from '../shared/constants.ts'
import {
  ConfigError,
  type Env,
  type LogLevel,
  readBoolean,
  readInteger,
  readLogLevel,
  readOptionalString,
  readOptionalUrl,
  readString,
  readUrl,
  readUrlList,
} from '../shared/env.ts'
import { type CraftVersion, DEFAULT_CRAFT_VERSION, parseCraftVersion } from '../shared/craft-naming.ts'
import { SITE_HANDLE_PATTERN } from '../shared/sections.ts'
import { EMBEDDED_ASSETS_PATH } from './embedded-cms/assets.ts'
import type { RedirectRule } from './build-info.ts'
import { parseRedirects } from './redirects.ts'

export interface GatewayConfig {
  host: string
  port: number
  /** Behind a load balancer or CDN: trust X-Forwarded-For and -Proto (client address for rate limits, HTTPS for HSTS). */
  trustProxy: boolean
  /** Where the renderer(s) listen. */
  rendererUrls: URL[]
  /** How often each renderer's /healthz is checked (a failing one is skipped until it passes). */
  rendererProbeIntervalMs: number
  /** How often host names in RENDERER_URL are resolved again. */
  rendererDnsRefreshMs: number
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
  siteHandle: string
  siteUrl: URL
  logLevel: LogLevel
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
  /** Requests per client address and window on /api and on the purge endpoint. */
  rateLimit: { apiMax: number; purgeMax: number; windowMs: number }
  maxBodyBytes: number
  /** Id of this build, from dist/build.json unless set. */
  buildId: string | undefined
  /** Folder of built files (client bundle, build.json). */
  distDir: string
  publicDir: string
  /** Content files of the embedded content API. */
  contentDir: string
  /** The embedded content's asset volume, served under /cms-assets/ when the embedded API is on. */
  embeddedAssetDir: string
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
    trustProxy: readBoolean(env, 'TRUST_PROXY', false),
    rendererUrls: readUrlList(env, 'RENDERER_URL', 'http://127.0.0.1:3001'),
    rendererProbeIntervalMs: readInteger(env, 'RENDERER_PROBE_INTERVAL_MS', 2000, 100, 60_000),
    rendererDnsRefreshMs: readInteger(env, 'RENDERER_DNS_REFRESH_MS', 5000, 100, 300_000),
    craftApiUrl,
    craftToken: readOptionalString(env, 'CRAFT_TOKEN'),
    craftSchemaToken: readOptionalString(env, 'CRAFT_SCHEMA_TOKEN'),
    craftVersion: readCraftVersion(env, 'CRAFT_VERSION'),
    craftIntrospection: readBoolean(env, 'CRAFT_INTROSPECTION', true),
    craftSchemaRetryMs: readInteger(env, 'CRAFT_SCHEMA_RETRY_MS', 1000, 10, 600_000),
    embeddedCraftVersion: readCraftVersion(env, 'EMBEDDED_CRAFT_VERSION'),
    siteHandle,
    siteUrl,
    logLevel: readLogLevel(env),
    upstream: {
      connectTimeoutMs: readInteger(env, 'UPSTREAM_CONNECT_TIMEOUT_MS', 2000, 10, 60_000),
      headersTimeoutMs: readInteger(env, 'UPSTREAM_HEADERS_TIMEOUT_MS', 8000, 10, 120_000),
      bodyTimeoutMs: readInteger(env, 'UPSTREAM_BODY_TIMEOUT_MS', 8000, 10, 120_000),
      connections: readInteger(env, 'UPSTREAM_CONNECTIONS', 32, 1, 1024),
    },
    renderTimeoutMs: readInteger(env, 'RENDER_TIMEOUT_MS', 15_000, 100, 120_000),
    renderWithPayload: readBoolean(env, 'RENDER_WITH_PAYLOAD', true),
    cache: {
      maxEntries: readInteger(env, 'CACHE_MAX_ENTRIES', 5000, 1, 1_000_000),
      maxBytes: readInteger(env, 'CACHE_MAX_BYTES', 64 * 1024 * 1024, 1024, 8 * 1024 * 1024 * 1024),
      ttlMs: readInteger(env, 'CACHE_TTL_MS', 60_000, 0, 86_400_000),
      staleWhileRevalidateMs: readInteger(env, 'CACHE_SWR_MS', 600_000, 0, 86_400_000),
      staleIfErrorMs: readInteger(env, 'CACHE_STALE_IF_ERROR_MS', 86_400_000, 0, 30 * 86_400_000),
      pageCache: readBoolean(env, 'PAGE_CACHE', true),
      pageCacheFastPath: readBoolean(env, 'PAGE_CACHE_FAST_PATH', true),
      queryCache: readBoolean(env, 'QUERY_CACHE', true),
      pageMaxEntries: readInteger(env, 'PAGE_CACHE_MAX_ENTRIES', 2000, 1, 1_000_000),
      pageMaxBytes: readInteger(env, 'PAGE_CACHE_MAX_BYTES', 64 * 1024 * 1024, 1024, 8 * 1024 * 1024 * 1024),
      pageTtlMs: readInteger(env, 'PAGE_CACHE_TTL_MS', 30_000, 0, 86_400_000),
    },
    redirects: parseRedirects(readOptionalString(env, 'REDIRECTS')),
    frameAncestors: readOriginList(env, 'CMS_ORIGIN') ?? (craftApiUrl ? [craftApiUrl.origin] : []),
    connectSources: readOriginList(env, 'CONNECT_SRC') ?? [],
    assetOrigins,
    imageSources,
    embeddedAssetUrl,
    purgeSecret: readOptionalString(env, 'PURGE_SECRET'),
    redis: {
      url: readRedisUrl(env),
      commandTimeoutMs: readInteger(env, 'REDIS_COMMAND_TIMEOUT_MS', 100, 5, 10_000),
      lockMs: readInteger(env, 'REDIS_LOCK_MS', 5000, 50, 120_000),
      keyPrefix: readString(env, 'REDIS_KEY_PREFIX', `${siteHandle}:`, /^[A-Za-z0-9:_.-]{0,64}$/),
    },
    rateLimit: {
      apiMax: readInteger(env, 'API_RATE_LIMIT', 600, 1, 1_000_000),
      purgeMax: readInteger(env, 'PURGE_RATE_LIMIT', 30, 1, 1_000_000),
      windowMs: readInteger(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1000, 86_400_000),
    },
    maxBodyBytes: readInteger(env, 'API_MAX_BODY_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    buildId: readOptionalString(env, 'BUILD_ID'),
    distDir: readString(env, 'DIST_DIR', new URL('../dist', import.meta.url).pathname),
    publicDir: readString(env, 'PUBLIC_DIR', new URL('../public', import.meta.url).pathname),
    contentDir: readString(env, 'CONTENT_DIR', new URL('../gateway/embedded-cms/content', import.meta.url).pathname),
    embeddedAssetDir: new URL('../gateway/embedded-cms/assets', import.meta.url).pathname,
  }
}
