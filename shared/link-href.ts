/**
 * Where a link from the CMS may go. Rich text keeps only links of these
 * schemes (rich-text-sanitizer.ts), and every URL field the site writes into
 * an href (LINK_FIELDS) is cleaned by linkHref where rich text is cleaned: in
 * each CMS answer the gateway takes and in each render request a renderer
 * takes. A `data:`, `vbscript:` or `javascript:` address an editor typed, or
 * an import brought, is never a link on the site, in the page the server
 * writes nor in the one the browser renders from a payload.
 */
export const LINK_SCHEMES = ['https', 'http', 'mailto', 'tel'] as const

export type LinkScheme = (typeof LINK_SCHEMES)[number]

/** A field meant for a web address: http and https only. */
export const WEB_SCHEMES: readonly LinkScheme[] = ['https', 'http']

/**
 * The address as the CMS gave it (trimmed) when a link may go there: a path
 * of this site (`/…`, never `//…` or `/\…`, which leave it), a #fragment, or
 * an absolute URL of one of `schemes`; undefined for anything else. A control
 * character anywhere is refused: browsers drop tabs and newlines from an
 * address, so `/\t/x` would be `//x`, and `java\tscript:` `javascript:`.
 */
export function linkHref(value: unknown, schemes: readonly LinkScheme[] = WEB_SCHEMES): string | undefined {
  if (typeof value !== 'string') return undefined
  const href = value.trim()
  if (href === '' || /[\u0000-\u001f\u007f]/.test(href)) return undefined
  if (/^(?:#|\/(?![/\\]))/.test(href)) return href
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href)?.[1]?.toLowerCase()
  return scheme !== undefined && (schemes as readonly string[]).includes(scheme) ? href : undefined
}

/**
 * Whether a link of rich text goes where a link may not: linkHref refuses it
 * and, read as a browser reads it (without spaces and control characters),
 * it names a scheme or another host (`//…`, `/\\…`). A relative address
 * (`pagina`, `?p=2`) is no such link: rich text keeps it.
 */
export function refusedRichTextHref(href: string): boolean {
  if (linkHref(href, LINK_SCHEMES) !== undefined) return false
  const read = href.replace(/[\u0000-\u0020\u007f]/g, '')
  return /^(?:[a-z][a-z0-9+.-]*:|[/\\]{2})/i.test(read)
}

/** The URL fields of the content model the site writes into an href, and the schemes each may hold. */
const LINK_FIELDS: ReadonlyMap<string, readonly LinkScheme[]> = new Map([
  ['website', WEB_SCHEMES],
  ['afmRegisterUrl', WEB_SCHEMES],
  ['kifidRegisterUrl', WEB_SCHEMES],
  ['kvkRegisterUrl', WEB_SCHEMES],
  ['mapUrl', WEB_SCHEMES],
  // A call to action may be a call or a mail.
  ['ctaLinkUrl', LINK_SCHEMES],
])

/** The menus, lists of `{ label, url }`: a link of one whose address may not be a link is left out. */
const MENU_FIELDS: ReadonlySet<string> = new Set(['mainNavigation', 'footerNavigation'])

/** A link the cleaning dropped: the field and what it held, for the log. */
export type DroppedLink = (field: string, value: unknown) => void

/** Whether `key` names a field cleanLinkField cleans. */
export const isLinkField = (key: string): boolean => LINK_FIELDS.has(key) || MENU_FIELDS.has(key)

/**
 * A link field's value cleaned: the address kept (trimmed) where linkHref
 * allows it, else null; a menu without its links that may not be links.
 * What needed no change comes back as the same value.
 */
export function cleanLinkField(key: string, value: unknown, dropped?: DroppedLink): unknown {
  if (value === null || value === undefined) return value
  const schemes = LINK_FIELDS.get(key)
  if (schemes) {
    const href = linkHref(value, schemes)
    if (href === undefined) dropped?.(key, value)
    return href === value ? value : (href ?? null)
  }
  if (!Array.isArray(value)) return null
  const kept = value.filter((link: unknown) => {
    const allowed = typeof link === 'object' && link !== null && linkHref((link as { url?: unknown }).url, LINK_SCHEMES) !== undefined
    if (!allowed) dropped?.(key, (link as { url?: unknown } | null)?.url)
    return allowed
  })
  return kept.length === value.length ? value : kept
}

/** How many distinct dropped links are remembered, so that each is logged once, not on every render of a page that has it. */
const MAX_LOGGED_DROPS = 200

/** A DroppedLink that warns once of each field and address (the address cut to 200 characters), through `warn`. */
export function logDroppedLinks(warn: (fields: Record<string, unknown>, message: string) => void): DroppedLink {
  const logged = new Set<string>()
  return (field, value) => {
    const address = String(value).slice(0, 200)
    const key = `${field}\u0000${address}`
    if (logged.has(key)) return
    if (logged.size >= MAX_LOGGED_DROPS) logged.clear()
    logged.add(key)
    warn({ field, address }, 'a link from the CMS was dropped: a link may not go to its address')
  }
}
