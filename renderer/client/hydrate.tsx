import { StrictMode, startTransition } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { BrowserRouter } from 'react-router-dom'
import { type PagePayload, errorPayload } from '../../shared/payload.ts'
import { SiteRoutes } from '../app/app-root.tsx'
import { DocumentLinks, ROUTER_LINKS } from '../app/components/router-links.tsx'
import { CONFIG_SCRIPT_ID, type ClientConfig, DEFERRED_SCRIPT_ID, PAYLOAD_SCRIPT_ID, ROOT_ID, readElementJson } from '../app/document-ids.ts'
import type { ScreenRegistry } from '../app/screens/registry.ts'
import { type DeferredData, resolvedDeferred } from '../app/screens/types.ts'
import { watchBuilds } from './build-watcher.ts'
import { ClientApp, isBot } from './client-app.tsx'
import { reloadOnRebuild } from './dev-reload.ts'
import { PayloadLoader } from './payload-loader.ts'
import { setUpToken } from './preview-token.ts'
import { guardedFullLoad } from './reload-guard.ts'
import { RENDER_FAILED_MESSAGE } from './render-error-boundary.tsx'
import { keyHistoryEntry } from './scroll-positions.ts'
import { SCREEN_CHUNKS, loadScreen } from './screen-chunks.ts'

/** Set by the build (scripts/build-steps.mjs): true only in `npm run dev`, so production bundles drop the dev reload. */
declare const __DEV_RELOAD__: boolean

/** The streamed-in data of the page's Suspense boundary, as a promise React can read without waiting. */
function deferredFromDocument(payload: PagePayload): DeferredData | null {
  if (payload.pending.length === 0) return null
  return resolvedDeferred(readElementJson<Record<string, unknown> | null>(DEFERRED_SCRIPT_ID) ?? null)
}

async function start(): Promise<void> {
  const payload = readElementJson<PagePayload>(PAYLOAD_SCRIPT_ID)
  const config = readElementJson<ClientConfig>(CONFIG_SCRIPT_ID)
  const container = document.getElementById(ROOT_ID)
  if (!payload || !config || !container) return
  const screens: ScreenRegistry = {}
  try {
    if (payload.screen !== 'error') await loadScreen(SCREEN_CHUNKS, screens, payload.screen)
  } catch (error) {
    console.error(error)
    guardedFullLoad(location)
    return
  }
  const token = setUpToken(window.location.search)
  const loader = new PayloadLoader(token)
  const builds = watchBuilds(config.buildId, config.buildPollIntervalMs)
  keyHistoryEntry()
  startTransition(() => {
    const root = hydrateRoot(
      container,
      <StrictMode>
        <BrowserRouter>
          <ClientApp
            initial={payload}
            deferred={deferredFromDocument(payload)}
            screens={screens}
            loader={loader}
            builds={builds}
            screenLoader={SCREEN_CHUNKS}
            {...(config.screenModules ? { screenModules: config.screenModules } : {})}
            {...(config.graphqlWsUrl ? { live: { url: config.graphqlWsUrl, token } } : {})}
          />
        </BrowserRouter>
      </StrictMode>,
      {
        // Past the app's own error boundary React has unmounted everything: without this the page would be blank.
        onUncaughtError(error) {
          console.error('[render] uncaught error', error)
          if (isBot()) return
          const { pathname, search } = window.location
          const failure = errorPayload({
            path: pathname,
            fullPath: `${pathname}${search}`,
            statusCode: 500,
            message: RENDER_FAILED_MESSAGE,
            preview: payload.preview,
            siteUrl: payload.siteUrl,
          })
          // Nothing follows the history any more: its links load their page from the server.
          queueMicrotask(() =>
            root.render(
              <DocumentLinks.Provider value={true}>
                <BrowserRouter>
                  <SiteRoutes payload={failure} deferred={null} screens={{}} links={ROUTER_LINKS} />
                </BrowserRouter>
              </DocumentLinks.Provider>,
            ),
          )
        },
      },
    )
  })
}

if (__DEV_RELOAD__) reloadOnRebuild()
void start()
