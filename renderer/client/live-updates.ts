import {
  WS_BACKOFF_START_MS,
  WS_FATAL_CLOSE_CODES,
  WS_JITTER_MAX_MS,
  WS_JITTER_MIN_MS,
  WS_RETRY_ATTEMPTS,
} from '../../shared/constants.ts'

const ENTRY_CHANGED = 'subscription EntryChanged { entryChanged { id section slug dateUpdated } }'

/** Backoff before retry `retries` (0-based): exponential from 1 s, plus 300–3000 ms of jitter. */
export function retryDelay(retries: number, random = Math.random): number {
  return WS_BACKOFF_START_MS * 2 ** retries + WS_JITTER_MIN_MS + random() * (WS_JITTER_MAX_MS - WS_JITTER_MIN_MS)
}

export function isFatalClose(errorOrCloseEvent: unknown): boolean {
  const code = (errorOrCloseEvent as { code?: unknown } | null)?.code
  return typeof code === 'number' && (WS_FATAL_CLOSE_CODES as readonly number[]).includes(code)
}

function absolute(url: string): string {
  if (!url.startsWith('/')) return url
  return `${window.location.protocol === 'https:' ? 'wss:' : 'ws:'}//${window.location.host}${url}`
}

/**
 * Tells `onChange` when the CMS says an entry changed. The graphql-ws client
 * loads as its own chunk and connects lazily, with the token in the
 * connection parameters; fatal close codes end it, other failures retry up
 * to five times with backoff.
 */
export function subscribeToChanges(url: string, token: string, onChange: () => void): () => void {
  let disposed = false
  let stop: (() => void) | undefined
  import('graphql-ws')
    .then(({ createClient }) => {
      if (disposed) return
      const client = createClient({
        url: absolute(url),
        lazy: true,
        connectionParams: { token },
        retryAttempts: WS_RETRY_ATTEMPTS,
        shouldRetry: (errorOrCloseEvent) => !isFatalClose(errorOrCloseEvent),
        retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, retryDelay(retries))),
      })
      const unsubscribe = client.subscribe(
        { query: ENTRY_CHANGED },
        {
          next: () => onChange(),
          error: (error) => console.warn('[live] subscription ended', error),
          complete: () => undefined,
        },
      )
      stop = () => {
        unsubscribe()
        void client.dispose()
      }
    })
    .catch((error: unknown) => console.warn('[live] could not start live updates', error))
  return () => {
    disposed = true
    stop?.()
  }
}
