import { CONFIG_SCRIPT_ID, type ClientConfig, readElementJson } from '../app/document-ids.ts'

/**
 * The bundle's entry, kept tiny: the page is rendered on the server and can
 * be shown before any JavaScript runs, so the browser paints it first, and
 * only then fetches the chunks the page hydrates with (all at once, as
 * module preloads, so none waits for the one importing it) and evaluates
 * React. Fetched with the page, they competed with it for the first paint,
 * and a slow phone spent about 100 ms evaluating React DOM before painting
 * (docs/performance-history.md, issue 15).
 */
function preloadChunks(): void {
  let config: ClientConfig | undefined
  try {
    config = readElementJson<ClientConfig>(CONFIG_SCRIPT_ID)
  } catch {
    // Without the list the imports below still fetch everything, one after another.
  }
  for (const href of config?.modulePreloads ?? []) {
    const link = document.createElement('link')
    link.rel = 'modulepreload'
    link.href = href
    document.head.append(link)
  }
}

const hydrate = (): void => {
  preloadChunks()
  // Without it the page still reads and every link works as a plain link.
  import('./hydrate.tsx').catch((error: unknown) => console.error('[hydrate] the bundle could not be loaded', error))
}

/**
 * Runs `run` once the browser reports the page's first contentful paint.
 * Waiting on the paint entry, not on timers or animation frames, holds in a
 * background tab and under a test's paused clock alike. Where the browser
 * reports no paints, or the tab is hidden (nothing paints there), at once;
 * should a paint never be reported, the visitor's first touch, click or key.
 */
function afterFirstPaint(run: () => void): void {
  if (document.visibilityState === 'hidden' || !PerformanceObserver.supportedEntryTypes?.includes('paint')) {
    run()
    return
  }
  const interactions = ['pointerdown', 'keydown', 'touchstart'] as const
  let done = false
  const once = (): void => {
    if (done) return
    done = true
    observer.disconnect()
    for (const type of interactions) window.removeEventListener(type, once, true)
    run()
  }
  const observer = new PerformanceObserver((list) => {
    if (list.getEntriesByName('first-contentful-paint').length > 0) once()
  })
  observer.observe({ type: 'paint', buffered: true })
  for (const type of interactions) window.addEventListener(type, once, { capture: true, passive: true })
}

afterFirstPaint(hydrate)
