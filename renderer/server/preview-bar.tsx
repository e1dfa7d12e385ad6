import { PREVIEW_END_PATH, PREVIEW_END_RETURN_PARAM, PREVIEW_QUERY_PARAMS, PREVIEW_TOKEN_QUERY_PARAM } from '../../shared/constants.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { showsPreviewEntry } from '../../shared/preview-entries.ts'

export const PREVIEW_BAR_TEXT = 'Voorbeeldweergave — niet gepubliceerd'
export const PREVIEW_BAR_BUTTON = 'Voorbeeld sluiten'
/** A well-formed token Craft does not know (expired, or mistyped) is ignored: it answers with the live content, as for a valid token of another entry. */
export const PREVIEW_BAR_PUBLISHED = 'Voorbeeldweergave — dit is de gepubliceerde versie.'
export const PREVIEW_BAR_PUBLISHED_DETAIL =
  'Verwachtte u hier een concept? Dan is de voorbeeldlink verlopen of ongeldig. Open het voorbeeld opnieuw vanuit het CMS.'
export const PREVIEW_BAR_MISSING = 'Voorbeeldweergave — deze pagina is niet gevonden.'
export const PREVIEW_BAR_MISSING_DETAIL = 'De voorbeeldlink is mogelijk verlopen of ongeldig. Open het voorbeeld opnieuw vanuit het CMS.'

/**
 * What a preview shows, as far as the page's data tells: an entry visitors
 * do not see (a draft, a revision, an entry not live), only published
 * content, or nothing (a 404: for a never-published entry, what an unknown
 * token gives). A page that failed otherwise is said to be a preview only.
 */
export type PreviewShows = 'unpublished' | 'published' | 'missing'

export function previewShows(payload: PagePayload): PreviewShows {
  if (payload.status === 404) return 'missing'
  if (payload.status !== 200 || showsPreviewEntry(payload.data)) return 'unpublished'
  return 'published'
}

const BAR_TEXTS: Record<PreviewShows, { text: string; detail?: string }> = {
  unpublished: { text: PREVIEW_BAR_TEXT },
  published: { text: PREVIEW_BAR_PUBLISHED, detail: PREVIEW_BAR_PUBLISHED_DETAIL },
  missing: { text: PREVIEW_BAR_MISSING, detail: PREVIEW_BAR_MISSING_DETAIL },
}

const LIVE_PREVIEW_PARAM: (typeof PREVIEW_QUERY_PARAMS)[number] = 'x-craft-live-preview'
const PREVIEW_LINK_PARAMS: readonly string[] = [...PREVIEW_QUERY_PARAMS, PREVIEW_TOKEN_QUERY_PARAM]

function splitQuery(fullPath: string): { path: string; params: URLSearchParams } {
  const cut = fullPath.indexOf('?')
  return cut === -1 ? { path: fullPath, params: new URLSearchParams() } : { path: fullPath.slice(0, cut), params: new URLSearchParams(fullPath.slice(cut)) }
}

/**
 * Whether a preview is Craft's live preview: its iframe's address has
 * `x-craft-live-preview`, or the request came with Craft's
 * `X-Craft-Live-Preview` header (`header`, as the gateway passed it on).
 */
export function isLivePreview(payload: PagePayload, header?: unknown): boolean {
  return payload.preview && ((typeof header === 'string' && header !== '') || splitQuery(payload.fullPath).params.has(LIVE_PREVIEW_PARAM))
}

/**
 * Whether the page gets the preview bar: a preview, except in Craft's live
 * preview, whose iframe sits in the CMS's own editor, where the editor knows
 * already.
 */
export function showsPreviewBar(payload: PagePayload, livePreview: boolean = isLivePreview(payload)): boolean {
  return payload.preview && !livePreview
}

/** The address the bar's form posts to: the preview's end, back to this page without its preview link (the gateway checks it again). */
export function previewEndAction(fullPath: string): string {
  const { path, params } = splitQuery(fullPath)
  for (const name of PREVIEW_LINK_PARAMS) params.delete(name)
  const query = params.toString()
  return `${PREVIEW_END_PATH}?${PREVIEW_END_RETURN_PARAM}=${encodeURIComponent(query ? `${path}?${query}` : path)}`
}

/**
 * The bar that says a page shows a preview, with the way out: a plain form
 * (no JavaScript needed) whose POST clears the token cookie
 * (gateway/routes/preview-end.ts). Rendered on the server only, outside
 * React's root: no byte of it in the browser bundle, and it stays through
 * client-side navigations, as the cookie does.
 */
export function PreviewBar({ fullPath, shows }: { fullPath: string; shows: PreviewShows }) {
  const { text, detail } = BAR_TEXTS[shows]
  return (
    <aside className="preview-bar" aria-label="Voorbeeld" data-shows={shows}>
      <div className="container preview-bar__inner">
        <p className="preview-bar__text">
          <strong>{text}</strong>
          {detail ? ` ${detail}` : null}
        </p>
        <form className="preview-bar__form" method="post" action={previewEndAction(fullPath)}>
          <button className="preview-bar__button" type="submit">
            {PREVIEW_BAR_BUTTON}
          </button>
        </form>
      </div>
    </aside>
  )
}
