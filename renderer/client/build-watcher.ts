import type { BuildMeta, RedirectRule } from '../../shared/build-meta.ts'
import { BUILD_META_PREFIX, LATEST_BUILD_PATH, MANIFEST_FETCH_DELAY_MS } from '../../shared/constants.ts'

export interface BuildWatcher {
  /** A newer build is live: the next navigation is a full page load. */
  outdated(): boolean
  redirectFor(path: string): RedirectRule | undefined
  stop(): void
}

/** Connections that report themselves as very slow wait longer before the first check. */
function firstCheckDelay(): number {
  const connection = (navigator as Navigator & { connection?: { effectiveType?: string; saveData?: boolean } }).connection
  const slow = connection?.saveData === true || connection?.effectiveType === 'slow-2g' || connection?.effectiveType === '2g'
  return slow ? MANIFEST_FETCH_DELAY_MS * 10 : MANIFEST_FETCH_DELAY_MS
}

/**
 * Polls builds/latest.json: 1 s after load, then every `intervalMs`. Reads
 * the build's route rules from builds/meta/{id}.json. Failures are only logged.
 */
export function watchBuilds(buildId: string, intervalMs: number): BuildWatcher {
  let newer = false
  let redirects: RedirectRule[] = []
  let interval: ReturnType<typeof setInterval> | undefined

  const check = async (): Promise<void> => {
    try {
      const response = await fetch(`${LATEST_BUILD_PATH}?${Date.now()}`, { cache: 'no-store' })
      if (!response.ok) throw new Error(`status ${response.status}`)
      const latest = (await response.json()) as { id?: string }
      if (latest.id && latest.id !== buildId) newer = true
    } catch (error) {
      console.warn('[build] could not check for a new build', error)
    }
  }
  const loadRules = async (): Promise<void> => {
    try {
      const response = await fetch(`${BUILD_META_PREFIX}${buildId}.json`)
      if (!response.ok) throw new Error(`status ${response.status}`)
      const meta = (await response.json()) as Partial<BuildMeta>
      redirects = meta.matchers?.redirects ?? []
    } catch (error) {
      console.warn('[build] could not load the route rules', error)
    }
  }
  const first = setTimeout(() => {
    void check()
    void loadRules()
    interval = setInterval(() => void check(), intervalMs)
  }, firstCheckDelay())

  return {
    outdated: () => newer,
    redirectFor: (path) => redirects.find((rule) => rule.from === path),
    stop() {
      clearTimeout(first)
      if (interval) clearInterval(interval)
    },
  }
}
