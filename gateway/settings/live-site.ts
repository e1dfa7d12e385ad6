import { type BooleanRow, type Env, checkUrl, readSetting } from '../../shared/env.ts'
import { ConfigError } from '../../shared/errors.ts'
import { NODE_ENV_SETTING } from './development.ts'

/**
 * The deliberate switch that lets a production build serve what only a demo
 * may: the embedded content and an address on this machine. The image sets
 * NODE_ENV=production, so without it a stack deployed with its defaults
 * would serve the fictional content with links to localhost, and say nothing.
 */
export const DEMO_SITE_SETTING = {
  name: 'DEMO_SITE',
  kind: 'boolean',
  default: false,
  description:
    '`true`: this is a demo, not the live site; with `NODE_ENV=production` (the image) the embedded content (no `CRAFT_API_URL`) and a `SITE_URL` on this machine or over `http://` are then allowed. Set by `npm run test:containers`; never on a live site (see [operations](operations.md#first-production-deploy))',
  effect: 'with `NODE_ENV=production` and without it, a missing `CRAFT_API_URL` or a `SITE_URL` on localhost or over `http://` stops the start with a `configuration error` naming the setting (exit code 2)',
} as const satisfies BooleanRow

/** A live site: NODE_ENV=production without DEMO_SITE=true. */
function isLiveSite(env: Env): boolean {
  return readSetting(env, NODE_ENV_SETTING) === 'production' && !readSetting(env, DEMO_SITE_SETTING)
}

const LIVE_SITE_HINT = 'with NODE_ENV=production (the image) a live site needs it; set DEMO_SITE=true only for a demo'

/** IPv4 127/8 (also as an IPv4-mapped IPv6 address), ::1, localhost and *.localhost; the unspecified addresses too. The hostname is the URL's, normalised. */
export function isOnThisMachine(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  if (/^127\.\d+\.\d+\.\d+$/.test(host) || host === '0.0.0.0') return true
  // WHATWG URL writes IPv6 compressed and lower case, an IPv4-mapped 127.x.y.z as ::ffff:7fxx:xxxx.
  return host === '[::1]' || host === '[::]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host)
}

/** SITE_URL: an http(s) URL; on a live site https, and not on this machine. */
export function parseSiteUrl(value: string | undefined, env: Env, fallback: string): URL {
  const url = checkUrl('SITE_URL', value ?? fallback)
  if (!isLiveSite(env)) return url
  const given = value === undefined ? `unset (so ${fallback})` : `"${value}"`
  if (isOnThisMachine(url.hostname)) {
    throw new ConfigError(`SITE_URL is ${given}, an address on this machine: set SITE_URL to the site's public https address (e.g. https://www.example.nl); ${LIVE_SITE_HINT}`)
  }
  if (url.protocol !== 'https:') {
    throw new ConfigError(`SITE_URL is ${given}: set an https:// address (the preview cookie is Secure, and canonical links must not point at a redirect); ${LIVE_SITE_HINT}`)
  }
  return url
}

/** CRAFT_API_URL: unset means the embedded content, which a live site never serves. */
export function parseCraftApiUrl(value: string | undefined, env: Env): URL | undefined {
  if (value !== undefined) return checkUrl('CRAFT_API_URL', value)
  if (isLiveSite(env)) {
    throw new ConfigError(`CRAFT_API_URL is unset, so the site would serve the embedded demo content: set CRAFT_API_URL to Craft's GraphQL endpoint (e.g. https://cms.example.nl/api); ${LIVE_SITE_HINT}`)
  }
  return undefined
}
