import { type Env, readSetting, settingsOf } from '../../shared/env.ts'
import { ConfigError } from '../../shared/errors.ts'
import { CRAFT_SETTINGS } from './craft.ts'

/** graphql-ws's connectionInitWaitTimeout for /cms/live: an editor's browser sends connection_init at once. */
const LIVE_INIT_TIMEOUT_MS = 5000
/**
 * Pings on /cms/live; deploy/nginx.conf's proxy_read_timeout for that
 * location (30 s) is a little longer, so a live socket is never idle there.
 */
const LIVE_PING_INTERVAL_MS = 20_000

const ORIGIN = /^(https?|wss?):\/\/[A-Za-z0-9.-]+(:\d+)?$/

function originList(name: string, value: string | undefined): string[] | undefined {
  return value?.split(',').map((part) => {
    const origin = part.trim()
    if (!ORIGIN.test(origin)) throw new ConfigError(`${name}: "${origin}" is not an origin such as https://cms.example.nl`)
    return origin
  })
}

/** CMS_ORIGIN's default: Craft's own origin may frame the site (its live preview). */
function craftOrigin(env: Env): string[] {
  const craftApiUrl = readSetting(env, CRAFT_SETTINGS.table.craftApiUrl)
  return craftApiUrl ? [craftApiUrl.origin] : []
}

const ORIGINS = 'origins, comma-separated'
const CSP = "the pages' `Content-Security-Policy` header"

/** What the browser may frame, connect to and load, and the live preview sockets of the embedded CMS. */
export const BROWSER_SETTINGS = settingsOf('browser', {
  live: {
    initTimeoutMs: {
      name: 'LIVE_INIT_TIMEOUT_MS',
      kind: 'integer',
      default: LIVE_INIT_TIMEOUT_MS,
      min: 10,
      max: 60_000,
      description: "`/cms/live`: a socket that has not sent `connection_init` by then is closed with 4408 (graphql-ws's `connectionInitWaitTimeout`)",
      effect: 'a WebSocket client that opens `/cms/live` and says nothing sees close code 4408 after this long',
    },
    pingIntervalMs: {
      name: 'LIVE_PING_INTERVAL_MS',
      kind: 'integer',
      default: LIVE_PING_INTERVAL_MS,
      min: 10,
      max: 300_000,
      description:
        "`/cms/live`: WebSocket pings this often; a peer that has not answered the last one by the next is cut off. `deploy/nginx.conf`'s `proxy_read_timeout` for `/cms/live` (30 s) must stay a little longer",
      effect: 'a WebSocket client that shows control frames (`wscat --show-ping-pong`) gets a ping this often',
    },
    maxSubscriptionsPerSocket: {
      name: 'LIVE_MAX_SUBSCRIPTIONS_PER_SOCKET',
      kind: 'integer',
      default: 8,
      min: 1,
      max: 1000,
      description: '`/cms/live`: subscriptions one socket may hold; one more is answered with an error (`TOO_MANY_SUBSCRIPTIONS`) and the socket stays',
      effect: 'one subscription more gets an `error` message with `TOO_MANY_SUBSCRIPTIONS` on the socket',
    },
    maxSocketsPerClient: {
      name: 'LIVE_MAX_SOCKETS_PER_CLIENT',
      kind: 'integer',
      default: 4,
      min: 1,
      max: 10_000,
      description:
        '`/cms/live`: open sockets of one client (an IPv4 address or IPv6 prefix, `CLIENT_IPV6_PREFIX`); one more is refused with 429 before the upgrade',
      effect: 'one socket more: 429 `RATE_LIMITED` instead of the upgrade, and the log line `live socket refused`',
    },
    maxSockets: {
      name: 'LIVE_MAX_SOCKETS',
      kind: 'integer',
      default: 500,
      min: 1,
      max: 100_000,
      description: '`/cms/live`: open sockets of one gateway; one more is refused with 503',
      effect: 'one socket more: 503 `LIVE_SOCKETS_FULL`, and the log line `live socket refused`',
    },
  },
  frameAncestors: {
    name: 'CMS_ORIGIN',
    kind: 'list',
    parse: (value: string | undefined, env: Env) => originList('CMS_ORIGIN', value) ?? craftOrigin(env),
    defaultText: 'the origin of `CRAFT_API_URL`',
    values: ORIGINS,
    description: "comma-separated origins allowed to frame the site (`frame-ancestors`, for Craft's live preview)",
    effect: `\`frame-ancestors 'self' {origins}\` in ${CSP}`,
  },
  connectSources: {
    name: 'CONNECT_SRC',
    kind: 'list',
    parse: (value: string | undefined) => originList('CONNECT_SRC', value) ?? [],
    defaultText: 'unset',
    values: ORIGINS,
    description: 'extra comma-separated origins the browser may connect to (`connect-src`, e.g. a `GRAPHQL_WS_URL` on another host)',
    effect: `\`connect-src\` in ${CSP}`,
  },
  assetOrigins: {
    name: 'ASSET_ORIGINS',
    kind: 'list',
    parse: (value: string | undefined) => originList('ASSET_ORIGINS', value) ?? [],
    defaultText: 'unset',
    values: ORIGINS,
    description:
      "extra comma-separated origins pages may load images from (`img-src`), e.g. a CDN in front of Craft's asset volumes; the origin of `CRAFT_API_URL` is always allowed",
    effect: `\`img-src\` in ${CSP}`,
  },
})
