import { createHash } from 'node:crypto'

/**
 * The page's Content-Security-Policy. Scripts: the site's own files and the
 * inline scripts of streamed SSR, by nonce (a fresh page) or by hash (a page
 * from the cache). Framing: only the site itself and the CMS (live preview).
 * Images: the site's own, data: URLs, and the CMS's asset origins (Craft's
 * asset URLs are absolute, on the CMS's host or an asset CDN).
 */
export function contentSecurityPolicy(scripts: string[], frameAncestors: string[], connect: string[], images: string[]): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${scripts.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: ${images.join(' ')}`.trim(),
    "font-src 'self'",
    `connect-src 'self' ${connect.join(' ')}`.trim(),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors 'self' ${frameAncestors.join(' ')}`.trim(),
  ].join('; ')
}

/**
 * The policy of every answer that is not a rendered page. HTML (the
 * gateway's own fallback page) may load the site's stylesheet and be framed
 * like a page, so a live preview shows it; anything else loads nothing and
 * is never framed.
 */
export function defaultContentSecurityPolicy(html: boolean, frameAncestors: string[]): string {
  if (!html) return "default-src 'none'; frame-ancestors 'none'"
  return [
    "default-src 'none'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors 'self' ${frameAncestors.join(' ')}`.trim(),
  ].join('; ')
}

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)(?![^>]*\btype="application\/(?:json|ld\+json)")[^>]*>([\s\S]*?)<\/script>/g
const NONCE_ATTRIBUTE = / nonce="[^"]*"/g

/**
 * A rendered page made fit for the cache: its per-response nonces removed,
 * and the hashes of its inline scripts to allow them instead.
 */
export function forCaching(html: string): { html: string; scriptHashes: string[] } {
  const stripped = html.replace(NONCE_ATTRIBUTE, '')
  const hashes = new Set<string>()
  for (const match of stripped.matchAll(INLINE_SCRIPT)) {
    hashes.add(`'sha256-${createHash('sha256').update(match[1] ?? '').digest('base64')}'`)
  }
  return { html: stripped, scriptHashes: [...hashes] }
}
