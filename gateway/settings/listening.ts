import { type Env, settingsOf } from '../../shared/env.ts'
import { parseRedirects } from '../pages/redirects.ts'
import { DEMO_SITE_SETTING, parseSiteUrl } from './live-site.ts'

const DEFAULT_SITE_URL = 'http://localhost:3000'

/** Where the gateway listens and answers probes, the site's address, and the build it serves. */
export const LISTENING_SETTINGS = settingsOf('listening', {
  siteUrl: {
    name: 'SITE_URL',
    kind: 'url',
    parse: (value: string | undefined, env: Env) => parseSiteUrl(value, env, DEFAULT_SITE_URL),
    defaultText: `\`${DEFAULT_SITE_URL}\``,
    values: 'an http(s) URL; with `NODE_ENV=production`: https, not on this machine (unless `DEMO_SITE=true`)',
    description:
      "the public address of the site: the sitemap's addresses and the pages' canonical ones. With `NODE_ENV=production` (the image) an address on this machine (localhost, *.localhost, 127/8, ::1) or over `http://` is refused: the preview cookie is `Secure`, so previews work only over https (browsers make an exception for localhost alone), and canonical links must not point at a redirect",
    effect: '`/sitemap.xml` lists addresses on it, `/robots.txt` ends with `Sitemap: {SITE_URL}/sitemap.xml`, and a page\'s `<link rel="canonical">` starts with it',
  },
  demoSite: DEMO_SITE_SETTING,
  host: {
    name: 'HOST',
    kind: 'string',
    default: '0.0.0.0',
    values: 'addresses, `@subnet` or `@name`, comma-separated',
    description:
      "address(es) of the public port, comma-separated; `@10.231.1.0/24` stands for this machine's own address in that subnet, `@name` for its own address among those `name` resolves to (see [operations](operations.md#listening-addresses))",
    effect: 'the `gateway listening` log line at start names the address (`url`); a changed `@` address logs `listening addresses changed`',
  },
  port: {
    name: 'PORT',
    kind: 'integer',
    default: 3000,
    min: 0,
    max: 65535,
    description: 'the public port (`0`: any free port)',
    effect: 'the `url` of the `gateway listening` log line',
  },
  hostRecheckIntervalMs: {
    name: 'HOST_RECHECK_INTERVAL_MS',
    kind: 'integer',
    default: 2000,
    min: 0,
    max: 600_000,
    description:
      "how often the `@subnet` and `@name` entries of `HOST` and `INTERNAL_HOST` are resolved again: a new address of this machine gets a listener, one no longer this machine's is closed once its requests are done, and the Redis connections start again (see [operations](operations.md#listening-addresses)); `0` = only at start",
    effect: 'after an address change, within this time the log line `listening addresses changed` (with `opened` and `closed`)',
  },
  internalHost: {
    name: 'INTERNAL_HOST',
    kind: 'string',
    default: '127.0.0.1',
    values: 'one address, `@subnet` or `@name`',
    description:
      'address of the internal listener (one; `@subnet` or `@name` as for `HOST`); `@<scrape subnet>` in the containers, so the port answers on the scrape network only',
    effect: 'the `internal` address of the `gateway listening` log line',
  },
  internalPort: {
    name: 'INTERNAL_PORT',
    kind: 'integer',
    default: 3100,
    min: 0,
    max: 65535,
    description: "the gateway's internal listener: `GET /readyz`, `GET /metrics`, `GET /healthz`; never published or proxied (`0` = any free port)",
    effect: 'the `internal` address of the `gateway listening` log line; `curl http://127.0.0.1:3100/readyz` answers there and 404 on the public port',
  },
  readinessCacheMs: {
    name: 'READINESS_CACHE_MS',
    kind: 'integer',
    default: 2000,
    min: 0,
    max: 60_000,
    description:
      'how long a readiness result is kept: probes within it cost no call to the CMS, renderers or Redis, and probes that arrive together share one check',
    effect: 'two `GET /readyz` within it give the same answer although a renderer was stopped in between; the next one after it says `"renderer": "unreachable"`',
  },
  redirects: {
    name: 'REDIRECTS',
    kind: 'json',
    parse: parseRedirects,
    defaultText: 'unset',
    values: 'JSON',
    description: 'JSON list of `{"from": "/oud", "to": "/nieuw" or "https://…", "statusCode": 301 or 302}`; the CMS\'s `redirects` section adds more',
    effect: 'a request for `from` answers its `statusCode` with `Location: {to}`',
  },
  buildId: {
    name: 'BUILD_ID',
    kind: 'string',
    defaultText: 'from `dist/build.json`',
    description: 'overrides the build id',
    effect: '`builds.gateway` in `GET /readyz`, and `builds_in_service{role="gateway"}` on `/metrics`',
  },
  distDir: {
    name: 'DIST_DIR',
    kind: 'path',
    default: 'dist',
    description: 'the build output (the renderer reads `DIST_DIR` too)',
    effect: 'the client bundle is served from its `client/` at `/assets/…`, and `builds.gateway` of `GET /readyz` is the id in its `build.json` (without one, a random id per start)',
  },
  publicDir: {
    name: 'PUBLIC_DIR',
    kind: 'path',
    default: 'public',
    description: 'the static assets',
    effect: 'a file there is served at its path (`public/favicon.svg` at `/favicon.svg`)',
  },
})
