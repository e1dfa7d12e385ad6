/** Where the positions outlive a reload: this tab's session storage. */
const STORAGE_KEY = 'scroll-positions'
/** Entries remembered at most; the oldest go first. */
const MAX_ENTRIES = 100
/** react-router's `location.key` of a history entry whose state has none (a native #fragment step, or a page opened afresh before keyHistoryEntry). */
const NO_KEY = 'default'

/** A fresh key of the form react-router gives an entry it pushes (eight base-36 characters). */
const newEntryKey = (): string => Math.random().toString(36).slice(2, 10)

/**
 * Gives the current history entry a key when it has none (a page opened
 * afresh), before react-router's BrowserRouter reads it (its `location.key`
 * is `history.state.key`): positions are kept per key, and every page opened
 * afresh would otherwise share react-router's "default".
 */
export function keyHistoryEntry(): void {
  const state = window.history.state as Record<string, unknown> | null
  if (typeof state?.key === 'string') return
  window.history.replaceState({ ...state, key: newEntryKey() }, '')
}

/**
 * The vertical scroll position of every history entry of the site, keyed on
 * react-router's `location.key`, as a browser keeps them for a site of plain
 * pages: the browser's own restoration is off (it would scroll before the
 * returned-to page is on screen); the app restores a position once that page
 * has rendered. Kept in session storage when the page goes, so a reload and
 * then Back still finds it. react-router's own ScrollRestoration works only
 * with its data router, which costs some 17 KB gzip more (docs/performance-history.md).
 */
export class ScrollPositions {
  private readonly positions: Map<string, number>
  /** The entry whose page is on screen: scrolling is recorded for it. */
  private shown = NO_KEY

  constructor() {
    let saved: [string, number][] = []
    try {
      saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '[]') as [string, number][]
    } catch {
      // No storage (or not ours): positions last as long as the document.
    }
    this.positions = new Map(Array.isArray(saved) ? saved : [])
  }

  /** Takes over from the browser until the page goes; returns the undo. */
  listen(): () => void {
    const manual = (): void => {
      window.history.scrollRestoration = 'manual'
    }
    const onScroll = (): void => this.record()
    const onPageHide = (): void => {
      this.record()
      try {
        sessionStorage.setItem(STORAGE_KEY, JSON.stringify([...this.positions]))
      } catch {
        // Full or unavailable: a later visit scrolls to the top, as a new page would.
      }
      // A reload of this entry is the browser's again: it restores the position before this code runs.
      window.history.scrollRestoration = 'auto'
    }
    // Back from the back/forward cache: this document goes on, so this code does.
    const onPageShow = (event: PageTransitionEvent): void => {
      if (event.persisted) manual()
    }
    manual()
    window.addEventListener('scroll', onScroll, { passive: true })
    window.addEventListener('pagehide', onPageHide)
    window.addEventListener('pageshow', onPageShow)
    return () => {
      window.removeEventListener('scroll', onScroll)
      window.removeEventListener('pagehide', onPageHide)
      window.removeEventListener('pageshow', onPageShow)
      window.history.scrollRestoration = 'auto'
    }
  }

  /** The page of `entry` is on screen from now on. */
  show(entry: string): void {
    this.shown = entry
  }

  /** Notes where the page on screen is scrolled to (before another replaces it). */
  record(): void {
    if (this.shown === NO_KEY) return
    this.positions.delete(this.shown)
    this.positions.set(this.shown, Math.round(window.scrollY))
    for (const oldest of this.positions.keys()) {
      if (this.positions.size <= MAX_ENTRIES) break
      this.positions.delete(oldest)
    }
  }

  /** Scrolls to where `entry` was left, at once as a browser does; false when it was never left. */
  restore(entry: string): boolean {
    const top = entry === NO_KEY ? undefined : this.positions.get(entry)
    if (top === undefined) return false
    window.scrollTo({ top, left: 0, behavior: 'instant' })
    return true
  }
}
