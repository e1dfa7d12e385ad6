import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { type CraftVersion, DEFAULT_CRAFT_VERSION, parseCraftVersion } from '../../shared/craft-naming.ts'
import { type Env, checkUrl, readSetting, settingsOf } from '../../shared/env.ts'
import { ConfigError } from '../../shared/errors.ts'
import { SITE_HANDLE_PATTERN } from '../../shared/sections.ts'
import { EMBEDDED_ASSETS_PATH } from '../embedded-cms/assets.ts'
import { LISTENING_SETTINGS } from './listening.ts'
import { parseCraftApiUrl } from './live-site.ts'

function craftVersion(name: string, value: string | undefined): CraftVersion {
  if (value === undefined) return DEFAULT_CRAFT_VERSION
  const version = parseCraftVersion(value)
  if (version === undefined) throw new ConfigError(`${name}="${value}" must be 4 or 5`)
  return version
}

/** EMBEDDED_ASSET_URL: an absolute http(s) base URL for asset paths, no query or fragment; kept without its trailing slash. */
function assetBaseUrl(value: string | undefined, env: Env): string {
  const url = checkUrl('EMBEDDED_ASSET_URL', value ?? embeddedAssetsOnSite(env))
  if (url.search !== '' || url.hash !== '') throw new ConfigError(`EMBEDDED_ASSET_URL="${url.href}" must be a base URL without ? or #`)
  return url.href.replace(/\/+$/, '')
}

/** EMBEDDED_ASSET_URL's default: where the gateway itself serves the embedded assets, on SITE_URL. */
function embeddedAssetsOnSite(env: Env): string {
  return `${readSetting(env, LISTENING_SETTINGS.table.siteUrl).href.replace(/\/+$/, '')}${EMBEDDED_ASSETS_PATH}`
}

const CRAFT_VERSION_VALUES = '`5`, `4`'

/** Craft, or the embedded content API that stands in for it, and the calls the gateway makes to it. */
export const CRAFT_SETTINGS = settingsOf('craft', {
  craftApiUrl: {
    name: 'CRAFT_API_URL',
    kind: 'url',
    parse: parseCraftApiUrl,
    defaultText: 'unset',
    values: 'an http(s) URL',
    description:
      'a real Craft GraphQL endpoint; unset = the embedded content API (see [craft](craft.md)), refused with `NODE_ENV=production` (the image) unless `DEMO_SITE=true`',
    effect: '`upstream` in the `gateway listening` log line: this URL, or `embedded`; `checks.upstream` of `GET /readyz` says whether it answers',
  },
  siteHandle: {
    name: 'SITE_HANDLE',
    kind: 'string',
    default: DEFAULT_SITE_HANDLE,
    pattern: SITE_HANDLE_PATTERN,
    description: 'the `{product}` of the section handles and of the Craft site',
    effect: "the section handles in the `Cache-Tag` header of pages (`havenborgJobsOverview`); a handle Craft does not know shows as `failing` operations in `GET /readyz`'s `schema`",
  },
  embeddedAssetUrl: {
    name: 'EMBEDDED_ASSET_URL',
    kind: 'url',
    parse: assetBaseUrl,
    defaultText: '`{SITE_URL}/cms-assets`',
    values: 'an http(s) URL without `?` or `#`',
    description:
      "with the embedded content API: the absolute http(s) address at which browsers reach its asset volume (`gateway/embedded-cms/assets/`, which the gateway serves at `/cms-assets/`); its asset URLs are absolute on it, as Craft's are on a volume's base URL, and its origin is allowed in `img-src`",
    effect: "images of the embedded content have their `src` on it, and its origin is in the `img-src` of the pages' `Content-Security-Policy`",
  },
  craftToken: {
    name: 'CRAFT_TOKEN',
    kind: 'string',
    description: "the site's default access token, sent as `X-Craft-Token` when no preview token applies",
    effect: "nothing in the site's answers: Craft's request log shows `X-Craft-Token` on the gateway's calls, and content only that token may read appears on the pages",
  },
  craftSchemaToken: {
    name: 'CRAFT_SCHEMA_TOKEN',
    kind: 'string',
    description: "Craft's schema token, sent as `Authorization: Bearer …`; the embedded API then requires it",
    effect: "a token Craft refuses: the log line `Craft refused the GraphQL schema token (CRAFT_SCHEMA_TOKEN); not ready`, and `GET /readyz` answers 503 with `schema: refused`",
  },
  craftVersion: {
    name: 'CRAFT_VERSION',
    kind: 'enum',
    parse: (value: string | undefined) => craftVersion('CRAFT_VERSION', value),
    defaultText: `\`${DEFAULT_CRAFT_VERSION}\``,
    values: CRAFT_VERSION_VALUES,
    description: "the Craft major whose type names to use until Craft's schema says otherwise (and always with introspection off): `5` or `4`",
    effect: "`schema.craftVersion` in `GET /readyz` (the schema's own major once introspection has run)",
  },
  craftIntrospection: {
    name: 'CRAFT_INTROSPECTION',
    kind: 'boolean',
    default: true,
    description:
      'ask Craft for its schema at start-up (naming, and which documents it would refuse); `false` for a Craft with `enableGraphqlIntrospection` off',
    effect: "`false`: `checks.schema` of `GET /readyz` stays `not checked`; `true`: the log line `Craft's schema accepts every operation` (or what it refuses)",
  },
  craftSchemaRetryMs: {
    name: 'CRAFT_SCHEMA_RETRY_MS',
    kind: 'integer',
    default: 1000,
    min: 10,
    max: 600_000,
    description:
      'first pause before asking Craft for its schema again when it could not be asked, refused the token or refused documents (doubles up to 60 s)',
    effect: 'with Craft down, the log line `Craft could not be asked for its schema` comes again after this pause, then twice as long, up to a minute apart',
  },
  embeddedCraftVersion: {
    name: 'EMBEDDED_CRAFT_VERSION',
    kind: 'enum',
    parse: (value: string | undefined) => craftVersion('EMBEDDED_CRAFT_VERSION', value),
    defaultText: `\`${DEFAULT_CRAFT_VERSION}\``,
    values: CRAFT_VERSION_VALUES,
    description: 'whose naming the embedded content API imitates: `5` or `4`',
    effect: "without `CRAFT_API_URL`: `schema.craftVersion` in `GET /readyz`",
  },
  embeddedCmsPort: {
    name: 'EMBEDDED_CMS_PORT',
    kind: 'integer',
    default: 0,
    min: 0,
    max: 65535,
    defaultText: '`0` (a free port)',
    description: "without `CRAFT_API_URL`: port of the embedded content API's own listener on 127.0.0.1 (`0`: a free port)",
    effect: '`ss -ltnp` shows the gateway listening on `127.0.0.1:{port}`; the content API answers `POST /cms/api` there',
  },
  upstream: {
    connectTimeoutMs: {
      name: 'UPSTREAM_CONNECT_TIMEOUT_MS',
      kind: 'integer',
      default: 2000,
      min: 10,
      max: 60_000,
      description: 'connecting to Craft; past it the call fails (a stored answer stands in, else 502)',
      effect: '`upstream_request_duration_seconds` on `/metrics` counts the failed call by its `outcome`',
    },
    headersTimeoutMs: {
      name: 'UPSTREAM_HEADERS_TIMEOUT_MS',
      kind: 'integer',
      default: 8000,
      min: 10,
      max: 120_000,
      description:
        "waiting for Craft's answer (then 504); a page waits for at most one of these: a redirect lookup that must ask Craft runs alongside the render, and an error page takes its layout data from the cache only",
      effect: '`/api` answers 504 `UPSTREAM_TIMEOUT` after this long when Craft hangs and nothing is stored; `upstream_request_duration_seconds` counts it',
    },
    bodyTimeoutMs: {
      name: 'UPSTREAM_BODY_TIMEOUT_MS',
      kind: 'integer',
      default: 8000,
      min: 10,
      max: 120_000,
      description: "between body chunks of Craft's answer",
      effect: 'as `UPSTREAM_HEADERS_TIMEOUT_MS`, for an answer that stalls midway',
    },
    connections: {
      name: 'UPSTREAM_CONNECTIONS',
      kind: 'integer',
      default: 32,
      min: 1,
      max: 1024,
      description: "keep-alive connections to Craft (the pool's sockets; how many calls may be in flight is `CMS_CONCURRENCY`)",
      effect: "`ss -tn` on the gateway's host: at most this many connections to Craft's address",
    },
  },
  contentDir: {
    name: 'CONTENT_DIR',
    kind: 'path',
    default: 'gateway/embedded-cms/content',
    description: 'the embedded content files',
    effect: 'without `CRAFT_API_URL`: an edit of a file there shows on the page, and the log line `content changed`',
  },
})
