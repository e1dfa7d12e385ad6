import { CRAFT_TOKEN_HEADER, MAX_CONCURRENT_PRELOADS } from '../../shared/constants.ts'
import { type PagePayload, payloadPathOf } from '../../shared/payload.ts'

/**
 * How long a payload serves navigations at most. The gateway's s-maxage for
 * the answer shortens it when it is lower (CACHE_TTL_MS, 60 s by default):
 * the browser never keeps a payload longer than a shared cache may.
 */
export const PAYLOAD_FRESH_MS = 30_000
/** Payloads kept at most; the least recently used goes first. */
export const MAX_PAYLOADS = 30

/** How long the gateway lets a shared cache keep this answer; undefined when it names no s-maxage (a private answer). */
export function sharedMaxAgeMs(cacheControl: string | null): number | undefined {
  const match = /(?:^|,)\s*s-maxage=(\d+)/i.exec(cacheControl ?? '')
  return match ? Number(match[1]) * 1000 : undefined
}

interface Entry {
  promise: Promise<PagePayload>
  controller: AbortController
  /** Until when it may serve a navigation: set when its answer is in. */
  freshUntil: number
  /** Starts a prefetch still waiting for a free slot. */
  start?: (counted: boolean) => void
  /** A navigation (or a live refresh) waits on it: evicting it must not abort it. */
  wanted: boolean
}

/**
 * Page payloads for client navigation: fetched at once for a navigation,
 * prefetched on hover, focus or touch with at most five prefetches under way,
 * and kept for a while, at most MAX_PAYLOADS of them.
 */
export class PayloadLoader {
  /** In order of use: the first is the least recently used. */
  private readonly entries = new Map<string, Entry>()
  private readonly queue: string[] = []
  private active = 0

  constructor(private readonly token: () => string | undefined) {}

  /**
   * The payload of a path (with its `?search`) for a navigation: a fresh one
   * at hand, its prefetch (moved ahead of the queue), or its own request at
   * once. Every other prefetch still under way is no longer needed.
   */
  load(path: string, search: string): Promise<PagePayload> {
    const key = `${path}${search}`
    this.abortAllBut(key)
    const entry = this.fresh(key) ?? this.add(key, path, search)
    entry.wanted = true
    // Queued or new: it starts now, outside the prefetches' limit (the queue is empty by now).
    entry.start?.(false)
    return entry.promise
  }

  /** A fresh payload, past anything kept (after the CMS said the content changed). */
  refresh(path: string, search: string): Promise<PagePayload> {
    const key = `${path}${search}`
    this.drop(key)
    const entry = this.add(key, path, search)
    entry.wanted = true
    entry.start?.(false)
    return entry.promise
  }

  prefetch(path: string, search: string): void {
    const key = `${path}${search}`
    if (this.fresh(key)) return
    const entry = this.add(key, path, search)
    if (this.active < MAX_CONCURRENT_PRELOADS) entry.start?.(true)
    else this.queue.push(key)
  }

  /** The entry of `key` when it is under way or still fresh, now the most recently used. */
  private fresh(key: string): Entry | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    this.entries.delete(key)
    if (Date.now() >= entry.freshUntil) return undefined
    this.entries.set(key, entry)
    return entry
  }

  private add(key: string, path: string, search: string): Entry {
    let settle!: { resolve: (payload: PagePayload) => void; reject: (error: unknown) => void }
    const promise = new Promise<PagePayload>((resolve, reject) => (settle = { resolve, reject }))
    // A prefetch nobody waits for may fail (or be aborted) quietly.
    promise.catch(() => undefined)
    const entry: Entry = { promise, controller: new AbortController(), freshUntil: Infinity, wanted: false }
    entry.start = (counted) => {
      entry.start = undefined
      if (counted) this.active++
      this.request(path, search, entry.controller.signal)
        .then(
          ({ payload, maxAgeMs }) => {
            entry.freshUntil = Date.now() + Math.min(PAYLOAD_FRESH_MS, maxAgeMs ?? PAYLOAD_FRESH_MS)
            settle.resolve(payload)
          },
          (error: unknown) => {
            if (this.entries.get(key) === entry) this.entries.delete(key)
            settle.reject(error)
          },
        )
        .finally(() => {
          if (!counted) return
          this.active--
          const next = this.queue.shift()
          if (next !== undefined) this.entries.get(next)?.start?.(true)
        })
    }
    entry.controller.signal.addEventListener('abort', () => settle.reject(entry.controller.signal.reason), { once: true })
    this.entries.set(key, entry)
    this.evict()
    return entry
  }

  /** Stale payloads go, then the least recently used beyond the bound. */
  private evict(): void {
    const now = Date.now()
    for (const [key, entry] of this.entries) if (now >= entry.freshUntil) this.entries.delete(key)
    for (const key of this.entries.keys()) {
      if (this.entries.size <= MAX_PAYLOADS) break
      this.drop(key)
    }
  }

  /** Forgets `key`, and aborts its request when nothing waits for it. */
  private drop(key: string): void {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    const queued = this.queue.indexOf(key)
    if (queued !== -1) this.queue.splice(queued, 1)
    if (!entry.wanted && entry.freshUntil === Infinity) entry.controller.abort()
  }

  /** A navigation started: requests for other pages are no longer needed (queued prefetches, running ones, an earlier navigation's). */
  private abortAllBut(key: string): void {
    for (const [other, entry] of this.entries) {
      if (other === key || entry.freshUntil !== Infinity) continue
      this.entries.delete(other)
      entry.controller.abort()
    }
    this.queue.length = 0
  }

  private async request(path: string, search: string, signal: AbortSignal): Promise<{ payload: PagePayload; maxAgeMs: number | undefined }> {
    const headers: Record<string, string> = { accept: 'application/json' }
    const token = this.token()
    if (token) headers[CRAFT_TOKEN_HEADER] = token
    // Asked of the gateway every time (a 304 when unchanged): the gateway's max-age=0 with stale-while-revalidate would let
    // the browser's HTTP cache hand back a copy minutes old, and this loader decides how long a payload is used.
    // The origin written out: a path that starts with `//` (`https://site//other.example/x`) must not name a host.
    const response = await fetch(`${location.origin}${payloadPathOf(path)}${search}`, { headers, credentials: 'same-origin', cache: 'no-cache', signal })
    const payload = (await response.json()) as PagePayload
    // A 5xx is the gateway's trouble, not the page: the navigation gives way to a full load (client-app.tsx).
    if (response.status > 499 || typeof payload?.status !== 'number') throw new Error(`no payload for ${path}`)
    return { payload, maxAgeMs: sharedMaxAgeMs(response.headers.get('cache-control')) }
  }
}
