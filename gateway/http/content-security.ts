import { createHash } from 'node:crypto'

/**
 * The page's Content-Security-Policy. Scripts: the site's own files and the
 * inline scripts of streamed SSR; style elements: the site's own stylesheets
 * and the renderer's inline ones (the stylesheet in the head): both by nonce
 * (a fresh page) or by hash (a page from the cache), so a `<style>` that got
 * into the HTML any other way is refused. Style attributes (React's `style`
 * prop) stay allowed; `style-src` says the same for browsers before
 * `style-src-elem` (CSP 3). Framing: only the site itself and the CMS (live
 * preview). Images: the site's own, data: URLs, and the CMS's asset origins
 * (Craft's asset URLs are absolute, on the CMS's host or an asset CDN).
 */
export function contentSecurityPolicy(inline: InlineSources, frameAncestors: string[], connect: string[], images: string[]): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${inline.scripts.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    `style-src-elem 'self' ${inline.styles.join(' ')}`.trim(),
    "style-src-attr 'unsafe-inline'",
    `img-src 'self' data: ${images.join(' ')}`.trim(),
    "font-src 'self'",
    `connect-src 'self' ${connect.join(' ')}`.trim(),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors 'self' ${frameAncestors.join(' ')}`.trim(),
  ].join('; ')
}

/** The policies of this site's pages: a fresh page's, by its response's nonce, and one with other inline sources (none, or a cached page's hashes). */
export interface PagePolicies {
  withNonce: (nonce: string) => string
  withInline: (inline: InlineSources) => string
}

export function pagePolicies(config: { frameAncestors: string[]; connectSources: string[]; imageSources: string[] }): PagePolicies {
  const withInline = (inline: InlineSources): string => contentSecurityPolicy(inline, config.frameAncestors, config.connectSources, config.imageSources)
  // A fresh page's policy differs only in its nonce: the text around it is made once.
  const aroundNonce = withInline(nonceSources('\u0000')).split('\u0000')
  return { withNonce: (nonce) => aroundNonce.join(nonce), withInline }
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

/** What a page's policy allows inline, beside the site's own files: CSP source expressions (a nonce or hashes). */
export interface InlineSources {
  scripts: string[]
  styles: string[]
}

/** The policy's sources of a fresh page: its response's nonce, for scripts and style elements alike. */
export const nonceSources = (nonce: string): InlineSources => ({ scripts: [`'nonce-${nonce}'`], styles: [`'nonce-${nonce}'`] })

export const NO_INLINE_SOURCES: InlineSources = { scripts: [], styles: [] }

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)(?![^>]*\btype="application\/(?:json|ld\+json)")([^>]*)>([\s\S]*?)<\/script>/g
const INLINE_STYLE = /<style\b([^>]*)>([\s\S]*?)<\/style>/g
const NONCE_ATTRIBUTE = / nonce="[^"]*"/g

const hashOf = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

/**
 * A rendered page made fit for the cache: its per-response nonces removed,
 * and the hashes of its inline scripts and styles to allow them instead.
 * Only elements that carried the response's `nonce`, the ones its fresh
 * policy allowed, are hashed: anything else inline stays refused.
 */
export function forCaching(html: string, nonce: string | undefined): { html: string; inline: InlineSources } {
  const inline: InlineSources = { scripts: [], styles: [] }
  if (nonce !== undefined) {
    const allowed = ` nonce="${nonce}"`
    // Each hashed as it is served: with the nonces stripped, as everywhere else.
    const hashesOf = (pattern: RegExp): string[] => {
      const hashes = new Set<string>()
      for (const [, attributes = '', text = ''] of html.matchAll(pattern)) if (attributes.includes(allowed)) hashes.add(hashOf(text.replace(NONCE_ATTRIBUTE, '')))
      return [...hashes]
    }
    inline.scripts = hashesOf(INLINE_SCRIPT)
    inline.styles = hashesOf(INLINE_STYLE)
  }
  return { html: html.replace(NONCE_ATTRIBUTE, ''), inline }
}
