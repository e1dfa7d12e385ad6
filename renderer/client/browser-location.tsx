import { type ReactNode, createContext, startTransition, useCallback, useContext, useLayoutEffect, useMemo, useState } from 'react'

/**
 * The browser's location as the app reads it, in the few lines the app uses
 * of a router: which entry of the session history is shown, whether it was
 * reached by a new navigation or by Back/Forward, and how to go somewhere.
 * Routing itself (which screen shows a path) is the gateway's payload; the
 * app never matched routes on the client. Written by hand because the
 * declarative react-router it replaces cost about 16 KB gzip of first-load
 * JavaScript for these four names (docs/performance.md, issue 15).
 */

/** A history entry's key when its state has none (a native #fragment step, or a page another script replaced). */
export const NO_KEY = 'default'

export interface BrowserLocation {
  pathname: string
  search: string
  hash: string
  /** The history entry's own key, kept in `history.state`: positions and views are remembered under it. */
  key: string
}

/** How the location on screen was reached: a new entry (`push`) or a step through the history (`pop`: Back, Forward, a #fragment). */
export type NavigationType = 'push' | 'pop'

interface LocationState {
  location: BrowserLocation
  type: NavigationType
}

interface LocationContextValue extends LocationState {
  navigate: (to: string) => void
}

const LocationContext = createContext<LocationContextValue | null>(null)

/** A fresh key for a history entry (eight base-36 characters, as history libraries make them). */
export function newEntryKey(): string {
  return Math.random().toString(36).slice(2, 10)
}

function entryKey(state: unknown): string {
  const key = (state as { key?: unknown } | null)?.key
  return typeof key === 'string' && key !== '' ? key : NO_KEY
}

function currentLocation(): BrowserLocation {
  const { pathname, search, hash } = window.location
  return { pathname, search, hash, key: entryKey(window.history.state) }
}

/**
 * Holds the location and follows the history: a `popstate` (Back, Forward,
 * a #fragment step) or a `navigate` call re-renders the app in a transition,
 * so the page on screen stays interactive until the next one is ready.
 */
export function BrowserRouter({ children }: { children: ReactNode }) {
  const [state, setState] = useState<LocationState>(() => ({ location: currentLocation(), type: 'pop' }))

  useLayoutEffect(() => {
    const onPopState = (): void => {
      startTransition(() => setState({ location: currentLocation(), type: 'pop' }))
    }
    window.addEventListener('popstate', onPopState)
    return () => window.removeEventListener('popstate', onPopState)
  }, [])

  const navigate = useCallback((to: string): void => {
    const key = newEntryKey()
    try {
      window.history.pushState({ key }, '', to)
    } catch {
      // Too many entries (Safari limits pushState) or a state the browser refuses: an ordinary page load still gets there.
      window.location.assign(to)
      return
    }
    startTransition(() => setState({ location: currentLocation(), type: 'push' }))
  }, [])
  const value = useMemo(() => ({ ...state, navigate }), [state, navigate])

  return <LocationContext.Provider value={value}>{children}</LocationContext.Provider>
}

function useLocationContext(): LocationContextValue {
  const value = useContext(LocationContext)
  if (!value) throw new Error('useLocation and useNavigate need a <BrowserRouter> above them')
  return value
}

/** The location on screen. */
export const useLocation = (): BrowserLocation => useLocationContext().location

/** How the location on screen was reached. */
export const useNavigationType = (): NavigationType => useLocationContext().type

/** Goes to a path of this site as a new history entry. */
export const useNavigate = (): ((to: string) => void) => useLocationContext().navigate
