import { type RouteObject, matchRoutes } from 'react-router-dom'
import { PRODUCT_PLACEHOLDER } from '../../shared/constants.ts'
import { ROUTE_TEMPLATES, type ScreenName } from '../../shared/routes.ts'

/**
 * The screen a path shows, known before its payload arrives, so that a
 * navigation (or a hover that announces one) fetches the screen's code
 * together with its data, not after it: the payload, then the chunk, then
 * the chunk's import was three round trips, six seconds on Slow 3G (issue 37).
 */
const SCREEN_ROUTES: (RouteObject & { screen: ScreenName })[] = ROUTE_TEMPLATES.flatMap((route) =>
  route.paths.map((path) => ({
    path: path
      .split('/')
      .map((segment) => (segment.includes(PRODUCT_PLACEHOLDER) ? ':slug' : segment))
      .join('/'),
    screen: route.screen,
  })),
)

/** The screen of `pathname`; undefined where no route matches (the 404 page). */
export function screenOfPath(pathname: string): ScreenName | undefined {
  return (matchRoutes(SCREEN_ROUTES, pathname)?.[0]?.route as { screen?: ScreenName } | undefined)?.screen
}

/** Each screen's chunk and its static imports, as file names next to this bundle (renderer/module-preloads.ts, in the page's client config). */
export type ScreenModules = Partial<Record<ScreenName, string[]>>

const preloaded = new Set<string>()

/** Has the browser fetch a screen's chunk and all its imports at once (module preloads), each once per page. */
export function preloadScreen(modules: ScreenModules | undefined, screen: ScreenName): void {
  for (const file of modules?.[screen] ?? []) {
    const href = new URL(file, import.meta.url).href
    if (preloaded.has(href)) continue
    preloaded.add(href)
    const link = document.createElement('link')
    link.rel = 'modulepreload'
    link.href = href
    document.head.append(link)
  }
}

let lastNavigationMs: number | undefined

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
 */
export function fullLoadIsQuicker(): boolean {
  if (lastNavigationMs === undefined) return false
  const paint = performance.getEntriesByName('first-contentful-paint')[0]?.startTime
  return paint !== undefined && lastNavigationMs > paint
}
