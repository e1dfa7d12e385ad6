import { type Dispatch, type SetStateAction, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { type Location, type NavigateFunction, NavigationType, useLocation, useNavigate, useNavigationType } from 'react-router-dom'
import { BOT_USER_AGENT_PATTERN, DEFAULT_SCROLL_BEHAVIOUR, LOAD_FAILED_MESSAGE, NAVIGATION_TIMEOUT_MS, OFFLINE_MESSAGE } from '../../shared/constants.ts'
import { type PagePayload, errorPayload } from '../../shared/payload.ts'
import { SiteRoutes, screenOfPath } from '../app/app-root.tsx'
import { ROOT_ID } from '../app/document-ids.ts'
import { LoadingContext } from '../app/components/loading-state.tsx'
import { ROUTER_LINKS, isPagePath } from '../app/components/router-links.tsx'
import type { ScreenRegistry } from '../app/screens/registry.ts'
import type { DeferredData } from '../app/screens/types.ts'
import type { BuildWatcher } from './build-watcher.ts'
import { LoadingIndicator } from './loading-indicator.ts'
import type { PayloadLoader } from './payload-loader.ts'
import { guardedFullLoad } from './reload-guard.ts'
import { RENDER_FAILED_MESSAGE, RenderErrorBoundary } from './render-error-boundary.tsx'
import { ScrollPositions } from './scroll-positions.ts'
import { type ScreenLoader, loadScreen } from './screen-chunks.ts'
import { type ScreenModules, fullLoadIsQuicker, preloadScreen, recordNavigation } from './screen-preloads.ts'

export interface ClientAppProps {
  /** Live preview updates: where to subscribe and with which token. */
  live?: { url: string; token: () => string | undefined }
  initial: PagePayload
  deferred: DeferredData | null
  screens: ScreenRegistry
  loader: PayloadLoader
  builds: BuildWatcher
  screenLoader: ScreenLoader
  /** Each screen's chunk and imports, to fetch with a navigation's payload. */
  screenModules?: ScreenModules
}

interface View {
  payload: PagePayload
  deferred: DeferredData | null
  /** The location this view belongs to. */
  key: string
  hash: string
  /** The history entry it is shown for (react-router's location.key): its scroll position is kept under it. */
  entry: string
  /** Shown by a client navigation: scroll and move focus once it is on screen. */
  navigated?: boolean
  /** Back, forward or a reload: scroll to where the entry was left, when it was. */
  restore?: boolean
  /** Fresh data for the page already shown (live preview): keep scroll position and focus. */
  refreshed?: boolean
}

export const isBot = (): boolean => BOT_USER_AGENT_PATTERN.test(navigator.userAgent)

function scrollBehaviour(): ScrollBehavior {
  return window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'instant' : DEFAULT_SCROLL_BEHAVIOUR
}

/** The link a click, hover or focus is about, when it leads to a page of this site. */
function internalLink(event: Event): { anchor: HTMLAnchorElement; url: URL } | undefined {
  const target = event.target
  if (!(target instanceof Element)) return undefined
  const anchor = target.closest('a')
  if (!anchor || !anchor.href || anchor.hasAttribute('download')) return undefined
  if (anchor.target && anchor.target !== '_self') return undefined
  const url = new URL(anchor.href, window.location.href)
  if (url.origin !== window.location.origin) return undefined
  // An anchor on this same page (the skip link, say) is the browser's business.
  if (url.hash && url.pathname === window.location.pathname && url.search === window.location.search) return undefined
  // A path that starts with `//` (from `/.//other.example/x`) is the browser's: react-router takes it for another host.
  if (!isPagePath(url.pathname) || url.pathname.startsWith('//')) return undefined
  return { anchor, url }
}

/** A click with the main button and no modifier key: one that follows a link in the same tab, and that nothing has handled yet. */
function isPlainClick(event: MouseEvent): boolean {
  return !event.defaultPrevented && event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey
}

/** The path, query and #fragment of a link's URL, as react-router navigates to it. */
const pathOf = (url: URL): string => `${url.pathname}${url.search}${url.hash}`

/** A payload for a navigation that could not load its data (non-fatal, in the layout). */
function failurePayload(path: string, fullPath: string, previous: PagePayload, message: string): PagePayload {
  return errorPayload({
    path,
    fullPath,
    statusCode: 500,
    message,
    preview: previous.preview,
    siteUrl: previous.siteUrl,
    data: previous.data.site ? { site: previous.data.site } : {},
  })
}

/**
 * The site in the browser: react-router's location drives which payload is
 * shown; links navigate on the client, payloads load from the gateway and
 * are prefetched on hover, focus and touch.
 */
export function ClientApp(props: ClientAppProps) {
  const { initial, deferred, screens, loader, live } = props
  const location = useLocation()
  const navigate = useNavigate()
  const locationKey = `${location.pathname}${location.search}`
  const [view, setView] = useState<View>({ payload: initial, deferred, key: locationKey, hash: location.hash, entry: location.key, restore: true })
  const indicator = useMemo(() => new LoadingIndicator(), [])
  const [scroll] = useState(() => new ScrollPositions())
  const navigationType = useNavigationType()
  /** The last view that rendered: what a crawler keeps when the next one throws. */
  const shown = useRef(view)

  useEffect(() => {
    document.getElementById(ROOT_ID)?.setAttribute('data-hydrated', 'true')
  }, [])
  useEffect(() => scroll.listen(), [scroll])
  useLocationViews(props, location, navigationType, view, setView, indicator, scroll)
  useLiveRefresh(live, loader, view, setView)
  useSiteLinks(props, navigate)

  const onShown = useCallback((shownView: View) => {
    shown.current = shownView
  }, [])

  return (
    <LoadingContext.Provider value={indicator}>
      <RenderErrorBoundary resetKey={view} fallback={() => <FailedPage view={view} shown={shown.current} screens={screens} scroll={scroll} />}>
        <Page view={view} screens={screens} scroll={scroll} onShown={onShown} />
      </RenderErrorBoundary>
    </LoadingContext.Provider>
  )
}

/**
 * A location the view does not show yet: load its payload and its screen's
 * code, then show it. (Arguments in place, not an object: every byte of this
 * is in a visitor's first load.)
 */
function useLocationViews(props: ClientAppProps, location: Location, navigationType: NavigationType, view: View, setView: ViewSetter, indicator: LoadingIndicator, scroll: ScrollPositions): void {
  const locationKey = `${location.pathname}${location.search}`
  useEffect(() => {
    const { pathname, hash, key: entry } = location
    const restore = navigationType === NavigationType.Pop
    // The page on screen, unless it is an error of 500 or more (a failed navigation's, or the server's): a tap on its
    // link or its "Probeer het opnieuw" tries again. Not for the view's own entry (the server's error page hydrated),
    // nor for a #fragment (the error page's skip link).
    if (locationKey === view.key && (view.payload.status < 500 || entry === view.entry || hash !== '')) {
      // Another entry of the page on screen (a #fragment): nothing to load; back to one, the position it was left at. Not
      // recorded here: after a click on a #fragment link the browser has already scrolled; scroll events kept the position.
      if (entry !== view.entry) {
        setView((current) => ({ ...current, hash, entry, restore, navigated: false, refreshed: false }))
      }
      return
    }
    if (loadsFromServer(location, navigationType, props.builds)) return
    // The screen's code with the payload, at once: its chunk and the chunk's imports as module preloads, and the chunk imported.
    const screen = screenOfPath(pathname)
    if (screen && !props.screens[screen]) {
      preloadScreen(props.screenModules, screen)
      loadScreen(props.screenLoader, props.screens, screen).catch(() => undefined)
    }
    return loadView(props, indicator, scroll, location, restore, view.payload, setView)
  }, [locationKey, location.key])
}

type ViewSetter = Dispatch<SetStateAction<View>>

/** Whether the location is left to a full load from the server (true: it has started). */
function loadsFromServer(location: Location, navigationType: NavigationType, builds: BuildWatcher): boolean {
  // Back and forward after a new deployment load the page from the server too, like a click.
  if (navigationType === NavigationType.Pop && builds.outdated() && guardedFullLoad(location)) return true
  // Where the last client navigation was slower than this page's fresh load, the server's page is quicker: a full load.
  if (!isBot() && fullLoadIsQuicker() && guardedFullLoad(location)) return true
  // A second tap on the link of a navigation still under way: the page loads whole rather than wait on the same request.
  return pending?.key !== location.key && pending?.pathname === location.pathname && pending.search === location.search && guardedFullLoad(location)
}

/** The location of the navigation under way, if any. */
let pending: Location | undefined

/**
 * Loads the location's payload and screen and shows them; the returned
 * function cancels it. A failure (a 5xx, no payload, a chunk, or nothing
 * after NAVIGATION_TIMEOUT_MS) loads the page whole; offline, when the request
 * itself failed, or when the guard holds the full load back, it shows the
 * error page (made from `previous`, the payload on screen when it started)
 * with a link that tries again, and offline it tries again itself once the
 * browser is online.
 */
function loadView(
  { loader, screens, screenLoader }: ClientAppProps,
  indicator: LoadingIndicator,
  scroll: ScrollPositions,
  location: Location,
  restore: boolean,
  previous: PagePayload,
  setView: ViewSetter,
): () => void {
  const { pathname, search, hash, key: entry } = location
  const locationKey = `${pathname}${search}`
  let cancelled = false
  let settled = false
  let timer: ReturnType<typeof setTimeout> | undefined
  /** Ends the attempt under way (false when none is) and stops the bar, red for a failure. */
  const end = (error?: boolean): boolean => {
    if (settled || cancelled) return false
    settled = true
    clearTimeout(timer)
    if (pending === location) pending = undefined
    indicator.finish({ error })
    return true
  }
  const show = (payload: PagePayload): void => {
    scroll.record()
    setView({ payload, deferred: null, key: locationKey, hash, entry, navigated: true, restore })
  }
  const fail = (error: unknown): void => {
    if (!end(true)) return
    console.error('[navigation] failed', error)
    if (isBot() && !(error as { chunk?: boolean }).chunk) return
    const offline = !navigator.onLine
    // A 5xx, no payload, a chunk or the timeout: the page loads whole. Offline, or when the request itself failed (fetch's
    // TypeError: the connection dropped, the site cannot be reached), a full load would show only the browser's own error.
    if ((!offline && !(error instanceof TypeError) && guardedFullLoad(location)) || isBot()) return
    if (offline) addEventListener('online', run, { once: true })
    show(failurePayload(pathname, locationKey, previous, offline ? OFFLINE_MESSAGE : LOAD_FAILED_MESSAGE))
  }
  const run = (): void => {
    settled = false
    pending = location
    const started = performance.now()
    indicator.start()
    timer = setTimeout(fail, NAVIGATION_TIMEOUT_MS, new Error('timed out'))
    loader
      .load(pathname, search)
      .then(async (payload) => {
        if (payload.screen !== 'error') await loadScreen(screenLoader, screens, payload.screen)
        return payload
      })
      .then((payload) => {
        if (!end()) return
        recordNavigation(performance.now() - started)
        show(payload)
      }, fail)
  }
  run()
  return () => {
    // Left before it loaded (back to the page on screen, say): the bar stops; a next navigation starts it again.
    if (!settled) indicator.finish()
    cancelled = true
    clearTimeout(timer)
    removeEventListener('online', run)
  }
}

/** Live preview: when the CMS says content changed, show the current page's fresh payload. */
function useLiveRefresh(live: ClientAppProps['live'], loader: PayloadLoader, view: View, setView: ViewSetter): void {
  const current = useRef(view)
  current.current = view
  const token = live?.token()
  useEffect(() => {
    if (!live || !token) return
    // Only a preview subscribes: its code (and graphql-ws behind it) is no part of a visitor's first load.
    let stop: (() => void) | undefined
    let cancelled = false
    import('./live-refresh.ts').then(({ refreshOnChanges }) => {
      if (cancelled) return
      stop = refreshOnChanges(live.url, token, loader, (key, payload) => {
        if (key === current.current.key) setView({ ...current.current, payload, deferred: null, refreshed: true })
      })
    }, (error: unknown) => console.warn('[live] could not load the live updates', error))
    return () => {
      cancelled = true
      stop?.()
    }
  }, [live?.url, token, loader])
}

/** The document's listeners for links to pages of the site: redirects, full loads, plain links, and prefetch on intent. */
function useSiteLinks({ builds, loader, screens, screenModules }: ClientAppProps, navigate: NavigateFunction): void {
  const onClickCapture = useCallback((event: MouseEvent) => beforeLinkActs(event, builds, navigate), [builds, navigate])
  // A plain <a> to a page of the site (in an entry's rich text, say), which no <Link> has handled: navigates as one would.
  const onClick = useCallback(
    (event: MouseEvent) => {
      if (!isPlainClick(event)) return
      const link = internalLink(event)
      if (!link) return
      event.preventDefault()
      navigate(pathOf(link.url))
    },
    [navigate],
  )
  const onIntent = useCallback((event: Event) => prefetchLink(event, loader, screens, screenModules), [loader, screens, screenModules])

  useEffect(() => {
    document.addEventListener('click', onClickCapture, { capture: true })
    document.addEventListener('click', onClick)
    document.addEventListener('mouseover', onIntent, { passive: true })
    document.addEventListener('focusin', onIntent, { passive: true })
    document.addEventListener('touchstart', onIntent, { passive: true })
    return () => {
      document.removeEventListener('click', onClickCapture, { capture: true })
      document.removeEventListener('click', onClick)
      document.removeEventListener('mouseover', onIntent)
      document.removeEventListener('focusin', onIntent)
      document.removeEventListener('touchstart', onIntent)
    }
  }, [onClickCapture, onClick, onIntent])
}

/**
 * Before any link acts on a click, react-router's <Link> included (it leaves a click whose default is prevented): a
 * redirect of the build's rules is followed instead, and once a newer build is live the page is loaded from the server.
 */
function beforeLinkActs(event: MouseEvent, builds: BuildWatcher, navigate: NavigateFunction): void {
  if (!isPlainClick(event)) return
  const link = internalLink(event)
  if (!link) return
  const { url } = link
  const rule = builds.redirectFor(url.pathname)
  if (rule && /^https?:\/\//.test(rule.to)) {
    event.preventDefault()
    window.location.assign(rule.to)
    return
  }
  if (builds.outdated() && guardedFullLoad(url)) {
    event.preventDefault()
    return
  }
  if (rule) {
    event.preventDefault()
    navigate(rule.to)
  }
}

/** Hover, focus or touch on a link to another page of the site: its payload, and its screen's code, fetched ahead. */
function prefetchLink(event: Event, loader: PayloadLoader, screens: ScreenRegistry, screenModules: ScreenModules | undefined): void {
  const link = internalLink(event)
  if (!link) return
  const { url } = link
  if (url.pathname === window.location.pathname && url.search === window.location.search) return
  loader.prefetch(url.pathname, url.search)
  const screen = screenOfPath(url.pathname)
  if (screen && !screens[screen]) preloadScreen(screenModules, screen)
}

interface PageProps {
  view: View
  screens: ScreenRegistry
  scroll: ScrollPositions
  onShown?: (view: View) => void
}

/**
 * A view on screen; once it has rendered: the title and, after a client
 * navigation, scroll position and focus for screen readers. Back and forward
 * go to where the visitor left that entry; a new navigation to the top or
 * the #anchor.
 */
function Page({ view, screens, scroll, onShown }: PageProps) {
  useLayoutEffect(() => {
    onShown?.(view)
    scroll.show(view.entry)
    if (view.refreshed) return
    const restored = view.restore === true && scroll.restore(view.entry)
    if (!view.navigated) return
    if (!restored) {
      const behavior = scrollBehaviour()
      const anchor = view.hash ? document.getElementById(decodeURIComponent(view.hash.slice(1))) : null
      if (anchor) anchor.scrollIntoView({ behavior, block: 'start' })
      else window.scrollTo({ top: 0, left: 0, behavior })
    }
    const heading = document.querySelector('main h1')
    if (heading instanceof HTMLElement) {
      heading.tabIndex = -1
      heading.focus({ preventScroll: true })
    }
  }, [view])
  return <SiteRoutes payload={view.payload} deferred={view.deferred} screens={screens} links={ROUTER_LINKS} />
}

/** A view that threw while rendering: people get the error page, crawlers keep the page they had (the error is only logged). */
function FailedPage({ view, shown, screens, scroll }: { view: View; shown: View; screens: ScreenRegistry; scroll: ScrollPositions }) {
  const replacement = useMemo<View>(() => {
    if (isBot()) return { ...shown, refreshed: true }
    const [path = view.key] = view.key.split('?')
    const payload = failurePayload(path, view.key, shown.payload, RENDER_FAILED_MESSAGE)
    return { payload, deferred: null, key: view.key, hash: view.hash, entry: view.entry, ...(view.navigated ? { navigated: true } : {}) }
  }, [view, shown])
  return <Page view={replacement} screens={screens} scroll={scroll} />
}
