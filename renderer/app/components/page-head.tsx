import type { SiteSettingsData } from '../../../shared/content-types.ts'
import type { PagePayload } from '../../../shared/payload.ts'
import { scriptJson } from '../../../shared/script-json.ts'
import type { PageMeta } from '../page-meta.ts'
import { type ScreenJsonLd, structuredData } from '../structured-data.ts'
import { FALLBACK_COMPANY_NAME } from './site-context.tsx'

/**
 * What a page says about itself to browsers, search engines and share
 * previews: title, description, robots, canonical, Open Graph, Twitter and
 * its structured data. One component for the server and the browser, so a
 * client navigation leaves the head as the server would have sent it.
 *
 * React 19 hoists the title, meta and link elements into the document's
 * head wherever they are rendered: on the server into the streamed head, in
 * the browser into document.head, where hydration claims the server's tags
 * (no second copy) and later renders update or remove them. A tag the next
 * page lacks (robots on an error page, its missing canonical) is unmounted,
 * so it leaves the head too.
 *
 * JSON-LD is a script, which React does not hoist: it stays where this
 * component is, in the body, which search engines read as well.
 */
/**
 * The page's JSON-LD, type and script-safe JSON of each item: on the server
 * made once per payload object, which the renderer reuses for as long as it
 * keeps a page's render data (renderer/server/kept-render-data.ts). The browser makes
 * them afresh: its payloads are its own to change.
 */
const structuredScriptsOf = new WeakMap<PagePayload, [string, string][]>()
function structuredScripts(payload: PagePayload, heading: string | undefined, screenJsonLd: ScreenJsonLd | undefined): [string, string][] {
  let scripts = structuredScriptsOf.get(payload)
  if (scripts === undefined) {
    scripts = structuredData(payload, heading, screenJsonLd).map((item) => [String(item['@type']), scriptJson(item)])
    if (typeof document === 'undefined') structuredScriptsOf.set(payload, scripts)
  }
  return scripts
}

export function PageHead({ payload, meta, screenJsonLd }: { payload: PagePayload; meta: PageMeta; screenJsonLd?: ScreenJsonLd }) {
  const siteName = (payload.data.site as SiteSettingsData | undefined)?.globalSet?.companyName ?? FALLBACK_COMPANY_NAME
  const shareTitle = meta.heading ?? meta.title
  return (
    <>
      <title>{meta.title}</title>
      {meta.description ? <meta name="description" content={meta.description} /> : null}
      {meta.noindex ? <meta name="robots" content="noindex" /> : null}
      {meta.canonicalUrl ? <link rel="canonical" href={meta.canonicalUrl} /> : null}
      <meta property="og:site_name" content={siteName} />
      <meta property="og:locale" content="nl_NL" />
      <meta property="og:type" content={payload.screen === 'article' ? 'article' : 'website'} />
      <meta property="og:title" content={shareTitle} />
      {meta.description ? <meta property="og:description" content={meta.description} /> : null}
      {meta.canonicalUrl ? <meta property="og:url" content={meta.canonicalUrl} /> : null}
      {meta.image ? <meta property="og:image" content={meta.image} /> : null}
      <meta name="twitter:card" content="summary_large_image" />
      <meta name="twitter:title" content={shareTitle} />
      {meta.description ? <meta name="twitter:description" content={meta.description} /> : null}
      {meta.image ? <meta name="twitter:image" content={meta.image} /> : null}
      {structuredScripts(payload, meta.heading, screenJsonLd).map(([type, json], index) => (
        <script key={`${type}-${index}`} type="application/ld+json" dangerouslySetInnerHTML={{ __html: json }} />
      ))}
    </>
  )
}
