import { DEV_GENERATION_TIMING, DEV_RELOAD_PATH } from '../../shared/constants.ts'

const RECONNECT_MS = 300

/** The generation this page was made in, as the gateway named it (Server-Timing is readable in secure contexts only, localhost included). */
function pageGeneration(): string | undefined {
  const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[]
  return navigation?.serverTiming?.find((entry) => entry.name === DEV_GENERATION_TIMING)?.description
}

/**
 * `npm run dev` only: reloads the page when the gateway's stream names a
 * generation other than the page's own (a service was rebuilt and is ready
 * since the page was made); without Server-Timing, other than the first one
 * the stream named. While the stream is connected, <html data-dev-generation>
 * holds the page's generation (for tests).
 */
export function reloadOnRebuild(): void {
  let current = pageGeneration()
  const connect = (): void => {
    const source = new EventSource(DEV_RELOAD_PATH)
    source.onmessage = (event: MessageEvent<string>) => {
      current ??= event.data
      if (event.data !== current) window.location.reload()
      else document.documentElement.dataset.devGeneration = current
    }
    // The browser gives up on a stream answered with an error (a gateway that is closing): start a new one.
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, RECONNECT_MS)
    }
  }
  connect()
}
