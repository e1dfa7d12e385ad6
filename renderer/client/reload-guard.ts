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

/** Where a full load goes: a path with its query and #fragment (a location of react-router or the window, or a URL). */
export type FullLoadTarget = Pick<Location, 'pathname' | 'search' | 'hash'>

/**
 * A full page load of the target, unless the guard says its path was reloaded a moment ago. The origin is written before
 * the path: resolved against the page, a path that starts with `//` (`/.//other.example/x` is one) names another host.
 */
export function guardedFullLoad({ pathname, search, hash }: FullLoadTarget): boolean {
  if (!mayReload(pathname)) return false
  const target = new URL(location.origin + pathname + search + hash)
  // Assigning the address already shown with a #hash would only scroll, not load.
  if (target.href === location.href) location.reload()
  else location.assign(target.href)
  return true
}
