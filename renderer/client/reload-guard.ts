import { RELOAD_GUARD_MS } from '../../shared/constants.ts'

const KEY = 'reload-guard:'

/** Whether a full reload of `path` may happen now: at most once per path per 10 s. */
export function mayReload(path: string, now = Date.now()): boolean {
  try {
    const last = Number(sessionStorage.getItem(KEY + path) ?? 0)
    if (now - last < RELOAD_GUARD_MS) return false
    sessionStorage.setItem(KEY + path, String(now))
    return true
  } catch {
    return true
  }
}

/** A full page load of `href`, unless the guard says this path was reloaded a moment ago. */
export function guardedFullLoad(href: string, path: string): boolean {
  if (!mayReload(path)) return false
  const target = new URL(href, window.location.href)
  // Assigning the address already shown with a #hash would only scroll, not load.
  if (target.href === window.location.href) window.location.reload()
  else window.location.assign(target.href)
  return true
}
