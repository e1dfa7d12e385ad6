/** Where the position is kept: the frame's session storage, shared by every frame of the site in the tab. */
export const PLACE_STORAGE_KEY = 'live-preview-place'
/** Craft's parameters of a live preview address, new with every refresh: not part of which page it is. */
const PREVIEW_PARAMS = ['x-craft-live-preview', 'x-craft-preview', 'token']

interface Place {
  address: string
  top: number
}

/** The page an address shows: its path and query without Craft's preview parameters. */
export function placeAddress(pathname: string, search: string): string {
  const params = new URLSearchParams(search)
  for (const name of PREVIEW_PARAMS) params.delete(name)
  const query = params.toString()
  return `${pathname}${query ? `?${query}` : ''}`
}

function readPlace(storage: Storage): Place | undefined {
  try {
    const place = JSON.parse(storage.getItem(PLACE_STORAGE_KEY) ?? 'null') as Partial<Place> | null
    return typeof place?.address === 'string' && typeof place.top === 'number' && Number.isFinite(place.top) ? { address: place.address, top: place.top } : undefined
  } catch {
    return undefined
  }
}

/**
 * Keeps the scroll position of live preview across a fresh iframe of the
 * same page: recorded at every scroll (once a frame), restored when the page
 * of the same address opens again. A page still growing (its deferred parts
 * stream in) is scrolled again as it grows, until the place is reached, the
 * editor scrolls, or the page has loaded.
 */
export function keepPlace(win: Window): void {
  let storage: Storage
  try {
    storage = win.sessionStorage
  } catch {
    // No storage in this frame (blocked): a fresh frame starts at the top, as before.
    return
  }
  const here = (): string => placeAddress(win.location.pathname, win.location.search)
  const saved = readPlace(storage)
  let pending = saved !== undefined && saved.address === here() && saved.top > 0 ? saved.top : undefined

  const reach = (): void => {
    if (pending === undefined) return
    win.scrollTo({ top: pending, left: 0, behavior: 'instant' })
    if (Math.abs(win.scrollY - pending) < 1) pending = undefined
  }
  const giveUp = (): void => {
    pending = undefined
  }
  if (pending !== undefined) {
    reach()
    const growing = new ResizeObserver(() => (pending === undefined ? growing.disconnect() : reach()))
    growing.observe(win.document.documentElement)
    for (const input of ['wheel', 'touchstart', 'keydown', 'mousedown']) win.addEventListener(input, giveUp, { once: true, passive: true })
    // Once the page has loaded it has grown as far as it will: a last try, then the place is as near as it gets
    // (with iframe-resizer the frame is as high as the page and never scrolls itself: Craft keeps the place).
    const last = (): void => {
      reach()
      giveUp()
    }
    if (win.document.readyState === 'complete') win.queueMicrotask(last)
    else win.addEventListener('load', last, { once: true })
  }

  let queued = false
  win.addEventListener(
    'scroll',
    () => {
      // While the place is still being reached, the page's own scrolling is not the editor's.
      if (queued || pending !== undefined) return
      queued = true
      win.requestAnimationFrame(() => {
        queued = false
        try {
          storage.setItem(PLACE_STORAGE_KEY, JSON.stringify({ address: here(), top: Math.round(win.scrollY) }))
        } catch {
          // Full: the next frame starts at the top.
        }
      })
    },
    { passive: true },
  )
}
