import type { PagePayload } from '../../shared/payload.ts'
import { scriptJson } from '../../shared/script-json.ts'
import { type PagePreloads, preloadModules } from './module-preloads.ts'
import { PreviewBar, isLivePreview, previewShows, showsPreviewBar } from './preview-bar.tsx'
import { StaticRouter } from 'react-router-dom'
import { AppRoot } from '../app/app-root.tsx'
import { type LayoutParts, LayoutPartsContext } from '../app/components/layout.tsx'
import { MARKUP_LINKS } from '../app/components/router-links.tsx'
import { LinkContext } from '../app/components/site-context.tsx'
import type { DeferredData } from '../app/screens/types.ts'

import { ALL_SCREENS } from '../app/screens/all-screens.ts'

import { CONFIG_SCRIPT_ID, type ClientConfig, PAYLOAD_SCRIPT_ID, ROOT_ID } from '../app/document-ids.ts'

export type { ClientConfig }


export interface DocumentProps {
  payload: PagePayload
  deferred: DeferredData | null
  stylesheet: string
  /** The stylesheet's text, in a `<style>` with the nonce: no request of its own before the first paint. */
  inlineStylesheet?: string | undefined
  client: ClientConfig
  modulePreloads: PagePreloads
  /** The response's nonce, for the preload links and the inline style under the page's Content-Security-Policy. */
  nonce: string
  /** The payload as script-safe JSON, when it is at hand as such. */
  payloadJson?: string | undefined
  /**
   * The bundle's entry as a script element at the end of the body, for a
   * render that has no bootstrap option (renderToString); a module script
   * runs once the document is parsed, so the payload below it is there.
   */
  entryScript?: string | undefined
  /** Whether the page is in Craft's live preview, as the request says (preview-bar.tsx); else as its address says. */
  livePreview?: boolean | undefined
  /** Craft's live preview's own script (client/live-preview.ts): given for a page in live preview only. */
  livePreviewEntry?: string | undefined
  /** The HTML of the layout's parts made earlier for the same settings and menu state (layout-parts.tsx); absent: rendered here. */
  layoutParts?: LayoutParts | undefined
}

/** The config script's JSON, written once per screen's preloads (one object each, module-preloads.ts) and client config. */
const configJsonOf = new WeakMap<PagePreloads, { client: ClientConfig; json: string }>()
function configJson(client: ClientConfig, modulePreloads: PagePreloads): string {
  const known = configJsonOf.get(modulePreloads)
  if (known?.client === client) return known.json
  const json = scriptJson({ ...client, modulePreloads: modulePreloads.afterPaint, screenModules: modulePreloads.screens })
  configJsonOf.set(modulePreloads, { client, json })
  return json
}

/** The whole HTML document of a page, rendered by React. */
export function Document({ payload, deferred, stylesheet, inlineStylesheet, client, modulePreloads, nonce, payloadJson, entryScript, livePreview, livePreviewEntry, layoutParts }: DocumentProps) {
  // The entry and its static imports (a few hundred bytes) are preloaded with the page; it fetches the rest once the page has painted.
  preloadModules(entryScript ? [entryScript, ...modulePreloads.withPage] : modulePreloads.withPage, nonce)
  return (
    <html lang="nl">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* Title, description, robots, canonical, Open Graph and Twitter tags: components/page-head.tsx (in AppRoot), hoisted here by React. */}
        {inlineStylesheet === undefined ? <link rel="stylesheet" href={stylesheet} /> : <style nonce={nonce} dangerouslySetInnerHTML={{ __html: inlineStylesheet }} />}
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <noscript>
          <style nonce={nonce}>{'.site-menu{display:none}.site-nav{display:block}'}</style>
        </noscript>
      </head>
      <body>
        {/* The first stop of the keyboard on every page, before the preview bar; outside the root, as it never changes. */}
        <a className="skip-link" href="#inhoud">
          Naar de inhoud
        </a>
        {/* Outside the root: the server's alone, never hydrated (preview-bar.tsx). */}
        {showsPreviewBar(payload, livePreview ?? isLivePreview(payload)) ? <PreviewBar fullPath={payload.fullPath} shows={previewShows(payload)} /> : null}
        <div id={ROOT_ID}>
          {/*
            react-router's StaticRouter here, its BrowserRouter and SiteRoutes in the browser (client/hydrate.tsx): the same
            page in the same elements. The browser's routes (useRoutes, matched on the payload's own path) add only context,
            which nothing on the server reads (its links are markup, MARKUP_LINKS, and read the location alone); matching
            them cost a fifth of a page's render.
          */}
          <StaticRouter location={payload.fullPath}>
            <LinkContext.Provider value={MARKUP_LINKS}>
              <LayoutPartsContext.Provider value={layoutParts ?? null}>
                <AppRoot payload={payload} deferred={deferred} screens={ALL_SCREENS} />
              </LayoutPartsContext.Provider>
            </LinkContext.Provider>
          </StaticRouter>
        </div>
        <script type="application/json" id={PAYLOAD_SCRIPT_ID} dangerouslySetInnerHTML={{ __html: payloadJson ?? scriptJson(payload) }} />
        <script type="application/json" id={CONFIG_SCRIPT_ID} dangerouslySetInnerHTML={{ __html: configJson(client, modulePreloads) }} />
        {entryScript ? <script type="module" src={entryScript} nonce={nonce} /> : null}
        {livePreviewEntry ? <script type="module" src={livePreviewEntry} nonce={nonce} /> : null}
      </body>
    </html>
  )
}
