import { CRAFT_TOKEN_HEADER, MAX_CONCURRENT_PRELOADS, PAYLOAD_SUFFIX } from '../../shared/constants.ts'
import type { PagePayload } from '../../shared/payload.ts'

/** How long a prefetched payload is used for a navigation. */
const PREFETCH_FRESH_MS = 30_000

export function payloadUrl(path: string, search: string): string {
  const base = path === '/' ? '' : path.replace(/\/+$/, '')
  return `${base}${PAYLOAD_SUFFIX}${search}`
}

interface Entry {
  promise: Promise<PagePayload>
  at: number
}

/**
 * Fetches page payloads for client navigation, and prefetches them on
 * hover, focus or touch with at most five requests under way.
 */
export class PayloadLoader {
  private readonly entries = new Map<string, Entry>()
  private readonly waiting: (() => void)[] = []
  private active = 0

  constructor(private readonly token: () => string | undefined) {}

  /** Payload of a path (with its `?search`), from a prefetch when there is a fresh one. */
  load(path: string, search: string): Promise<PagePayload> {
    const key = `${path}${search}`
    const entry = this.entries.get(key)
    if (entry && Date.now() - entry.at < PREFETCH_FRESH_MS) return entry.promise
    return this.fetchNow(key, path, search)
  }

  /** A fresh payload, past any prefetch (after the CMS said the content changed). */
  refresh(path: string, search: string): Promise<PagePayload> {
    return this.fetchNow(`${path}${search}`, path, search)
  }

  prefetch(path: string, search: string): void {
    const key = `${path}${search}`
    const entry = this.entries.get(key)
    if (entry && Date.now() - entry.at < PREFETCH_FRESH_MS) return
    let start!: () => void
    const promise = new Promise<PagePayload>((resolve, reject) => {
      start = () => {
        this.active++
        this.request(path, search)
          .then(resolve, reject)
          .finally(() => {
            this.active--
            this.waiting.shift()?.()
          })
      }
    })
    promise.catch(() => this.entries.delete(key))
    this.entries.set(key, { promise, at: Date.now() })
    if (this.active < MAX_CONCURRENT_PRELOADS) start()
    else this.waiting.push(start)
  }

  /** Requests under way (for tests and the loading bar). */
  get inFlight(): number {
    return this.active
  }

  private fetchNow(key: string, path: string, search: string): Promise<PagePayload> {
    const promise = this.request(path, search)
    promise.catch(() => this.entries.delete(key))
    this.entries.set(key, { promise, at: Date.now() })
    return promise
  }

  private async request(path: string, search: string): Promise<PagePayload> {
    const headers: Record<string, string> = { accept: 'application/json' }
    const token = this.token()
    if (token) headers[CRAFT_TOKEN_HEADER] = token
    const response = await fetch(payloadUrl(path, search), { headers, credentials: 'same-origin' })
    const payload = (await response.json()) as PagePayload
    if (typeof payload?.status !== 'number') throw new Error(`no payload for ${path}`)
    return payload
  }
}
