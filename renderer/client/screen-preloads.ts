import { FULL_LOAD_FALLBACK_MIN_MS } from '../../shared/constants.ts'
import type { ScreenName } from '../../shared/routes.ts'

// A navigation (or a hover that announces one) fetches the screen's code
// together with its data, not after it: the payload, then the chunk, then the
// chunk's import was three round trips, six seconds on Slow 3G (issue 37). The
// screen of a path comes from the route table (app-root.tsx, screenOfPath).

/** Each screen's chunk and its static imports, as file names in /assets/ (renderer/server/module-preloads.ts, in the page's client config). */
export type ScreenModules = Partial<Record<ScreenName, string[]>>

/** Has the browser fetch a screen's chunk and all its imports at once (module preloads; a module is fetched once, however often it is preloaded). */
export function preloadScreen(modules: ScreenModules | undefined, screen: ScreenName): void {
  for (const file of modules?.[screen] ?? []) {
    const link = document.createElement('link')
    link.rel = 'modulepreload'
    link.href = `/assets/${file}`
    document.head.append(link)
  }
}

let lastNavigationMs = 0

/** How long the last client navigation took, from the tap to its page on screen. */
export function recordNavigation(ms: number): void {
  lastNavigationMs = ms
}

/**
 * Whether a full page load is quicker here than the client's path, as this
 * visit measured them: the last client navigation took longer than this
 * document's own first paint after a fresh load. Measured rather than guessed
 * from the connection type: on Slow 3G with the code fetched in parallel the
 * client's path still wins (docs/browser.md), so a rule on "2G" would lose time.
 * Never for a navigation of at most FULL_LOAD_FALLBACK_MIN_MS: on a fast
 * connection a busy moment must not end client navigation for the visit.
 */
export const fullLoadIsQuicker = (): boolean =>
  lastNavigationMs > Math.max(FULL_LOAD_FALLBACK_MIN_MS, performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Infinity)
