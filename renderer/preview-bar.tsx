import { PREVIEW_END_PATH, PREVIEW_END_RETURN_PARAM, PREVIEW_QUERY_PARAMS, PREVIEW_TOKEN_QUERY_PARAM } from '../shared/constants.ts'
import type { PagePayload } from '../shared/payload.ts'

export const PREVIEW_BAR_TEXT = 'Voorbeeldweergave — niet gepubliceerd'
export const PREVIEW_BAR_BUTTON = 'Voorbeeld sluiten'

const LIVE_PREVIEW_PARAM: (typeof PREVIEW_QUERY_PARAMS)[number] = 'x-craft-live-preview'
const PREVIEW_LINK_PARAMS: readonly string[] = [...PREVIEW_QUERY_PARAMS, PREVIEW_TOKEN_QUERY_PARAM]

function splitQuery(fullPath: string): { path: string; params: URLSearchParams } {
  const cut = fullPath.indexOf('?')
  return cut === -1 ? { path: fullPath, params: new URLSearchParams() } : { path: fullPath.slice(0, cut), params: new URLSearchParams(fullPath.slice(cut)) }
}

/**
 * Whether the page gets the preview bar: a preview, except in Craft's live
 * preview, whose iframe (its address has `x-craft-live-preview`) sits in the
 * CMS's own editor, where the editor knows already.
 */
export function showsPreviewBar(payload: PagePayload): boolean {
  return payload.preview && !splitQuery(payload.fullPath).params.has(LIVE_PREVIEW_PARAM)
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
export function PreviewBar({ fullPath }: { fullPath: string }) {
  return (
    <aside className="preview-bar" aria-label="Voorbeeld">
      <div className="container preview-bar__inner">
        <p className="preview-bar__text">{PREVIEW_BAR_TEXT}</p>
        <form className="preview-bar__form" method="post" action={previewEndAction(fullPath)}>
          <button className="preview-bar__button" type="submit">
            {PREVIEW_BAR_BUTTON}
          </button>
        </form>
      </div>
    </aside>
  )
}
