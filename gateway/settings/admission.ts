import { type Env, parseInteger, readSetting, settingsOf } from '../../shared/env.ts'
import { ConfigError } from '../../shared/errors.ts'
import { DEFAULT_CLIENT_IPV6_PREFIX_BITS } from '../http/client-key.ts'
import { checkProxyAddress, type TrustProxy } from '../http/trust-proxy.ts'

/**
 * Work units (a render, a CMS call) one client may spend per window. A crawler
 * fetching the 39 pages of the sitemap and their payloads on a cold cache
 * spends some 85 (test/gateway/admission-budget.test.ts); 300 leaves room for
 * three such crawls a minute, or a crawl and some 40 previews (a preview is a
 * render and its 4 or 5 CMS calls).
 */
const DEFAULT_CLIENT_WORK_BUDGET = 300
/**
 * Work units a verified crawler may spend per window: a full crawl of a site
 * at ten times the shipped content (1,105 pages of the sitemap, without their
 * payloads) on a cold cache spends some 2,200 (a render each and its CMS
 * calls: test/gateway/crawler-budget.test.ts), so 5,000 holds such a crawl
 * twice over, or a crawl and the payloads a rendering crawler asks for.
 */
const DEFAULT_CRAWLER_WORK_BUDGET = 5_000
const DEFAULT_HEADERS_TIMEOUT_MS = 15_000

/** TRUST_PROXY: a hop count or a list of proxy addresses; `true` would let every client pick its own address for the rate limits. */
function trustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || /^(false|no|off)$/i.test(value)) return { hops: 0 }
  if (/^(true|yes|on)$/i.test(value)) {
    throw new ConfigError(
      `TRUST_PROXY=${value} would believe any client's X-Forwarded-For: give the number of proxies in front of the gateway (TRUST_PROXY=1 behind one nginx) or their addresses (TRUST_PROXY=10.0.0.5,172.16.0.0/12)`,
    )
  }
  if (/^[0-9]+$/.test(value)) return { hops: parseInteger('TRUST_PROXY', value, 0, 10) ?? 0 }
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

/** HEADERS_TIMEOUT_MS's default: 15 s, or less when the whole request may take less. */
function headersTimeoutWithinRequest(env: Env): number {
  return Math.min(DEFAULT_HEADERS_TIMEOUT_MS, readSetting(env, ADMISSION_SETTINGS.table.requestTimeoutMs))
}

/** Node requires the headers' timeout to be no longer than the whole request's. */
export function checkRequestTimeouts(config: { requestTimeoutMs: number; headersTimeoutMs: number }): void {
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS=${config.headersTimeoutMs} must not exceed REQUEST_TIMEOUT_MS=${config.requestTimeoutMs}`)
  }
}

const RATE_LIMITED = '429 `RATE_LIMITED` with `Retry-After`'

/** What one client may cost: who a client is, rate limits, the admission of uncached work, and the timeouts of a request. */
export const ADMISSION_SETTINGS = settingsOf('admission', {
  trustProxy: {
    name: 'TRUST_PROXY',
    kind: 'list',
    parse: trustProxy,
    defaultText: 'unset (none)',
    values: '`0`–`10`, or addresses and CIDRs, comma-separated',
    description:
      "whose `X-Forwarded-For`/`-Proto` the gateway believes, for client addresses (rate limits) and HTTPS (HSTS): the number of proxies in front of it (`1` behind one nginx; the nearest must connect from loopback or a private network), or a comma-separated list of the proxies' addresses or CIDRs (`10.0.0.5,172.16.0.0/12`; `loopback`, `uniquelocal` also work). `false`, `0` or unset: none. `true` (believe anyone) is refused at start",
    effect: "`Strict-Transport-Security` on answers a trusted proxy marks `X-Forwarded-Proto: https`; each forwarded client has its own `/api` limit (`x-ratelimit-remaining`)",
  },
  clientIpv6PrefixBits: {
    name: 'CLIENT_IPV6_PREFIX',
    kind: 'integer',
    default: DEFAULT_CLIENT_IPV6_PREFIX_BITS,
    min: 16,
    max: 128,
    description:
      'how many leading bits of an IPv6 address make one client for every per-client limit (`/api`, previews, purge failures, work budget, live sockets): by default an IPv6 /64 is one client, as an IPv4 address is; an IPv4-mapped IPv6 address is its IPv4 client',
    effect: 'two IPv6 addresses within one prefix share one `/api` limit: `x-ratelimit-remaining` counts down for both',
  },
  rateLimit: {
    apiMax: {
      name: 'API_RATE_LIMIT',
      kind: 'integer',
      default: 600,
      min: 1,
      max: 1_000_000,
      description: 'requests one client may make to `/api` per `RATE_LIMIT_WINDOW_MS`; then 429 until the window ends',
      effect: `\`x-ratelimit-limit\` and \`x-ratelimit-remaining\` on \`/api\` answers; past it ${RATE_LIMITED}`,
    },
    purgeMax: {
      name: 'PURGE_RATE_LIMIT',
      kind: 'integer',
      default: 30,
      min: 1,
      max: 1_000_000,
      description:
        'failed purges (wrong or missing secret) one client may make per `RATE_LIMIT_WINDOW_MS`, counted from its first failure; then 429 for that client, even with the right secret. Successful purges never count',
      effect: 'after this many 401s from `POST /api/purge`, 429 `RATE_LIMITED` for the rest of the window',
    },
    previewMax: {
      name: 'PREVIEW_RATE_LIMIT',
      kind: 'integer',
      default: 120,
      min: 1,
      max: 1_000_000,
      description:
        "previews one client may ask for per `RATE_LIMIT_WINDOW_MS`, besides what their renders and CMS calls cost in `CLIENT_WORK_BUDGET`: pages and `_payload.json` built with a preview token, which bypass every cache (then 429, the Dutch page or a JSON error, with `Retry-After`). A renderer's own payload requests for a preview render come with that render; any more are charged to the client who asked for the page",
      effect: `past it a preview answers ${RATE_LIMITED} and \`X-Cache: BYPASS\``,
    },
    windowMs: {
      name: 'RATE_LIMIT_WINDOW_MS',
      kind: 'integer',
      default: 60_000,
      min: 1000,
      max: 86_400_000,
      description: 'the window of `API_RATE_LIMIT`, `PURGE_RATE_LIMIT` and `PREVIEW_RATE_LIMIT`, and the time in which a spent `CLIENT_WORK_BUDGET` is refilled (evenly, unit by unit)',
      effect: "`Retry-After` of a 429 is at most this long; `x-ratelimit-reset` on `/api` answers counts down within it",
    },
  },
  admission: {
    clientWorkBudget: {
      name: 'CLIENT_WORK_BUDGET',
      kind: 'integer',
      default: DEFAULT_CLIENT_WORK_BUDGET,
      min: 1,
      max: 1_000_000_000,
      description:
        'work units one client may spend per `RATE_LIMIT_WINDOW_MS` on what no cache answers: each render and each CMS call made for its request (a preview: a render and its 4 or 5 calls; nothing while no renderer is up, as no render is made). Spent, the client gets the stored page if there is one (`X-Cache: STALE`), else 429 with `Retry-After` (the Dutch page; JSON for payloads and `/api`) until it has a unit again; cache hits never cost anything (see [security](security.md))',
      effect: `\`admission_total{kind="client",outcome="refused"}\` on \`/metrics\`; the client gets ${RATE_LIMITED}`,
    },
    maxClients: {
      name: 'ADMISSION_MAX_CLIENTS',
      kind: 'integer',
      default: 100_000,
      min: 100,
      max: 10_000_000,
      description: 'clients whose budgets one gateway remembers (the one unseen longest is forgotten, with its debt)',
      effect: 'nothing a client sees, unless the bound is too small: a forgotten client starts again with a full budget. The memory it takes shows in `process_resident_memory_bytes` on `/metrics`',
    },
    cmsConcurrency: {
      name: 'CMS_CONCURRENCY',
      kind: 'integer',
      default: 16,
      min: 1,
      max: 1024,
      description:
        "most calls one gateway has in flight to the CMS, of every kind: query-cache misses and refreshes, previews, `/api`, readiness and schema checks. Past it a call waits in the admission queue; one that waited `ADMISSION_QUEUE_MS` is not made (`UPSTREAM_BUSY`): a stored answer stands in, else the page's 503 (a JSON 503 for payloads and `/api`)",
      effect: '`admission_in_flight{kind="cms"}` on `/metrics` never exceeds it; `admission_total{kind="cms",outcome="queued|refused"}` counts the calls that waited or were not made',
    },
    renderConcurrency: {
      name: 'RENDER_CONCURRENCY',
      kind: 'integer',
      default: 8,
      min: 1,
      max: 1024,
      description:
        'most renders in flight per renderer (in all, this many times the renderers up, taken in turn), a streamed page counting until its last byte; past it a render waits in the admission queue, then the stored page (`X-Cache: STALE`) or the Dutch 503 page',
      effect: '`admission_in_flight{kind="render"}` on `/metrics` never exceeds it times the renderers up; `admission_total{kind="render",outcome="queued|refused"}`',
    },
    queueMs: {
      name: 'ADMISSION_QUEUE_MS',
      kind: 'integer',
      default: 1500,
      min: 0,
      max: 60_000,
      description: "longest wait for a CMS call's or a render's slot; then the call or render is not made",
      effect: '`admission_total{outcome="refused"}` on `/metrics` counts those that waited this long; `admission_waiting` shows the queue now',
    },
    queueLength: {
      name: 'ADMISSION_QUEUE_LENGTH',
      kind: 'integer',
      default: 1000,
      min: 0,
      max: 1_000_000,
      description: 'most CMS calls waiting for a slot at once, and as many renders; one more is refused at once (a stored answer or page stands in, else 503)',
      effect: '`admission_waiting{kind="cms|render"}` on `/metrics` never exceeds it',
    },
  },
  crawlers: {
    workBudget: {
      name: 'CRAWLER_WORK_BUDGET',
      kind: 'integer',
      default: DEFAULT_CRAWLER_WORK_BUDGET,
      min: 1,
      max: 1_000_000_000,
      description:
        "work units per `RATE_LIMIT_WINDOW_MS` for a search engine's crawler, verified as its operator says (Googlebot: the address's reverse DNS name under googlebot.com or google.com; Bingbot: under search.msn.com; that name resolving back to the address), in place of `CLIENT_WORK_BUDGET`: a full crawl of a site ten times the shipped content spends some 2,200. A client whose User-Agent claims a crawler but fails the check, or is not checked yet, is a stranger with `CLIENT_WORK_BUDGET` (see [security](security.md))",
      effect: '`admission_total{kind="crawler"}` on `/metrics` counts the work admitted for verified crawlers, and `crawler_verifications_total{crawler,outcome}` how their checks ended',
    },
    lookupsInFlight: {
      name: 'CRAWLER_LOOKUPS_IN_FLIGHT',
      kind: 'integer',
      default: 8,
      min: 1,
      max: 1024,
      description: 'crawler checks (a reverse DNS question, then a forward one) one gateway has under way at once; a request claiming a crawler beyond it is a stranger, not checked',
      effect: '`crawler_verifications_total{outcome="skipped"}` on `/metrics` counts the requests not checked',
    },
    lookupsPerClient: {
      name: 'CRAWLER_LOOKUPS_PER_CLIENT',
      kind: 'integer',
      default: 16,
      min: 1,
      max: 1_000_000,
      description:
        "crawler checks one client (an IPv4 address or IPv6 prefix, `CLIENT_IPV6_PREFIX`) may cause per `RATE_LIMIT_WINDOW_MS`: each address is checked once an hour (a failed check once a minute), and a /64 has many addresses; past it the client's requests are a stranger's, not checked",
      effect: '`crawler_verifications_total{outcome="skipped"}` on `/metrics`',
    },
    lookupTimeoutMs: {
      name: 'CRAWLER_LOOKUP_TIMEOUT_MS',
      kind: 'integer',
      default: 2000,
      min: 100,
      max: 60_000,
      description: "longest a crawler check may take (and each of its DNS questions); then it failed, and the address is checked again after a minute. No request ever waits for a check",
      effect: '`crawler_verifications_total{outcome="failed"}` on `/metrics`',
    },
  },
  maxBodyBytes: {
    name: 'API_MAX_BODY_BYTES',
    kind: 'integer',
    default: 64 * 1024,
    min: 1024,
    max: 10 * 1024 * 1024,
    description: 'largest accepted `/api` body (then 413)',
    effect: 'a larger `POST /api` answers 413',
  },
  requestTimeoutMs: {
    name: 'REQUEST_TIMEOUT_MS',
    kind: 'integer',
    default: 30_000,
    min: 100,
    max: 600_000,
    description: 'longest time a client may take to send a whole request; then 408 and the connection closes',
    effect: 'a request still arriving after this long answers 408 `REQUEST_TIMEOUT` and the connection closes',
  },
  headersTimeoutMs: {
    name: 'HEADERS_TIMEOUT_MS',
    kind: 'integer',
    default: headersTimeoutWithinRequest,
    defaultText: '`15000` (at most `REQUEST_TIMEOUT_MS`)',
    min: 100,
    max: 600_000,
    description: 'longest time a client may take to send its headers; then 408 and the connection closes. At most `REQUEST_TIMEOUT_MS`',
    effect: 'headers still arriving after this long: 408 and the connection closes (`curl` reports the 408, a raw socket sees it close)',
  },
  sendTimeoutMs: {
    name: 'SEND_TIMEOUT_MS',
    kind: 'integer',
    default: 30_000,
    min: 100,
    max: 600_000,
    description:
      'longest time an answer under way may make no progress (its unsent bytes wait on a client that stopped reading); then the connection is cut. A slow reader is never cut, nor an answer still waiting for its render',
    effect: 'a client that stops reading a large answer has its connection closed after this long; nothing else shows it',
  },
})
