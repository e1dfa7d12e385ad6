import { LRUCache } from 'lru-cache'
import type { ReactElement } from 'react'
import { renderToString } from 'react-dom/server'
import { StaticRouter } from 'react-router-dom'
import type { SiteSettings, SiteSettingsData } from '../../shared/content-types.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { DamageAction, Footer, Header, type LayoutParts, menuOf } from '../app/components/layout.tsx'
import { MARKUP_LINKS, isCurrentMenuLink } from '../app/components/router-links.tsx'
import { LinkContext } from '../app/components/site-context.tsx'

/**
 * The header, damage bar and footer of a page, as HTML made once and reused
 * (components/layout.tsx, LayoutPartsContext). They are more than half the
 * elements of a page (the footer alone some 70 of 200 on the home page) and
 * depend only on the site's settings and on which menu link is current, so
 * they are rendered once per such state rather than on every request
 * (docs/performance.md, "A fresh render").
 *
 * Each part is rendered alone by React, from the same component as in the
 * page and under the same links and location, and its element's inner HTML is
 * kept. A part whose HTML does not come out as one element of the expected
 * tag (React writes hoisted resources such as an image's preload before it,
 * for one) is left to the page's own render.
 */

/** Site settings and menu states remembered: a site has one settings set per preview state, and a menu of a few links. */
const MAX_STORED_LAYOUTS = 64

const stored = new LRUCache<string, LayoutParts>({ max: MAX_STORED_LAYOUTS })

/** The part's element's inner HTML, when React wrote it as one `<tag …>…</tag>`; undefined else. */
function innerHtml(html: string, tag: string): string | undefined {
  const close = `</${tag}>`
  if (!html.startsWith(`<${tag} `) && !html.startsWith(`<${tag}>`)) return undefined
  if (!html.endsWith(close)) return undefined
  const start = html.indexOf('>') + 1
  const inner = html.slice(start, html.length - close.length)
  // One element: nothing in the inner HTML closes it early.
  return inner.includes(close) ? undefined : inner
}

function renderPart(part: ReactElement, tag: string, location: string): string | undefined {
  return innerHtml(
    renderToString(
      <StaticRouter location={location}>
        <LinkContext.Provider value={MARKUP_LINKS}>{part}</LinkContext.Provider>
      </StaticRouter>,
    ),
    tag,
  )
}

/** The parts by settings object and menu state: an object the renderer keeps (and only while it does) finds them without a key. */
const partsOfSite = new WeakMap<SiteSettings, Map<string, LayoutParts>>()

const NO_MENU_REF = { current: null }

/**
 * The layout's parts for a page at `pathname` + `search` with these site
 * settings: from memory when a page with the same settings and the same
 * current menu link made them.
 */
export function layoutPartsOf(site: SiteSettings | null, pathname: string, search: string): LayoutParts {
  let current = ''
  for (const link of menuOf(site)) current += isCurrentMenuLink(link.url, pathname, search) ? '1' : '0'
  // The same settings object again (render data the renderer kept, kept-render-data.ts): no need to write it out as a key.
  const bySite = site === null ? undefined : partsOfSite.get(site)
  let parts = bySite?.get(current)
  if (parts !== undefined) return parts
  const key = `${current}\n${JSON.stringify(site)}`
  parts = stored.get(key)
  if (parts === undefined) {
    const location = `${pathname}${search}`
    parts = {
      header: renderPart(<Header site={site} menu={NO_MENU_REF} currentPath={pathname} />, 'header', location),
      damage: site?.damagePhone ? renderPart(<DamageAction site={site} />, 'aside', location) : undefined,
      footer: renderPart(<Footer site={site} />, 'footer', location),
    }
    stored.set(key, parts)
  }
  if (site !== null) {
    if (bySite === undefined) partsOfSite.set(site, new Map([[current, parts]]))
    else bySite.set(current, parts)
  }
  return parts
}

/** The layout's parts of a page: its site settings (as AppRoot reads them) at its address (as its StaticRouter reads it). */
export function layoutPartsOfPayload(payload: PagePayload): LayoutParts {
  const site = (payload.data.site as SiteSettingsData | undefined)?.globalSet ?? null
  const query = payload.fullPath.indexOf('?')
  return query === -1 ? layoutPartsOf(site, payload.fullPath, '') : layoutPartsOf(site, payload.fullPath.slice(0, query), payload.fullPath.slice(query))
}
