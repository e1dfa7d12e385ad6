/**
 * The background renders that refresh stored pages: a page past its TTL, or
 * marked stale by a soft purge, is served at once (X-Cache: STALE) and
 * rendered again behind the visitor's back (routes/pages.ts). Without a bound
 * of their own, a crawl over a site whose pages all expired, or a purge of a
 * big section, started one such render per page at once: thousands of
 * requests in the gateway's memory, all in the render queue before the
 * visitors' own misses. Here at most `maxInFlight` run at once, at most
 * `maxQueued` more wait, and a page is refreshed by one render at a time.
 * A page whose content changed (marked by a purge) goes ahead of pages that
 * only expired: an editor's save is seen first, however many expired pages
 * a crawl made wait; each kind waits first come, first served. Past the
 * queue's bound a refresh is not made now: its page stays stale, served at
 * once, and its next request asks again; a changed page takes the place of
 * the expired page that came last.
 */
export interface PageRefreshesOptions {
  /** Refreshes that run at once (PAGE_REFRESH_CONCURRENCY). */
  maxInFlight: number
  /** Refreshes that wait for one of those (PAGE_REFRESH_QUEUE). */
  maxQueued: number
  /** Told what became of each refresh asked for (the metrics). */
  onScheduled?: (outcome: RefreshScheduled) => void
}

/** How a refresh asked for went: `started` or `queued`, `running` (one is already under way or queued for the page), or `refused` (the queue was full). */
export type RefreshScheduled = 'started' | 'queued' | 'running' | 'refused'

/** Why a page is refreshed: a purge marked it (its content changed), or it only expired. */
export type RefreshReason = 'changed' | 'expired'

interface Refresh {
  key: string
  run: () => Promise<void>
  /** Told when the refresh is dropped before it ran (its place taken by a changed page's). */
  dropped?: () => void
}

export class PageRefreshes {
  private readonly keys = new Set<string>()
  /** Waiting refreshes of pages whose content changed, then of pages that expired. */
  private readonly queues: Record<RefreshReason, Refresh[]> = { changed: [], expired: [] }
  private running = 0
  private most = 0
  private closed = false
  private idleWaiters: (() => void)[] = []

  constructor(private readonly options: PageRefreshesOptions) {}

  /** Refreshes running now. */
  get inFlight(): number {
    return this.running
  }

  /** Refreshes waiting to run. */
  get queued(): number {
    return this.queues.changed.length + this.queues.expired.length
  }

  /** The most refreshes that ever ran at once (a test's and an operator's proof of the bound). */
  get mostInFlight(): number {
    return this.most
  }

  /** Whether a refresh of the key runs or waits. */
  has(key: string): boolean {
    return this.keys.has(key)
  }

  /**
   * Runs `run` (which must not reject) as the key's refresh, now or once a
   * running one is over; not when the key has one already, the queue is
   * full, or the gateway is closing. A changed page's refresh waits ahead of
   * the expired pages' and, the queue full, takes the last one's place: that
   * one is told through its `dropped`.
   */
  schedule(key: string, run: () => Promise<void>, reason: RefreshReason = 'expired', dropped?: () => void): RefreshScheduled {
    const outcome = this.scheduled({ key, run, ...(dropped ? { dropped } : {}) }, reason)
    this.options.onScheduled?.(outcome)
    return outcome
  }

  private scheduled(refresh: Refresh, reason: RefreshReason): RefreshScheduled {
    if (this.keys.has(refresh.key)) return 'running'
    if (this.closed) return 'refused'
    if (this.running < this.options.maxInFlight) {
      this.keys.add(refresh.key)
      this.start(refresh)
      return 'started'
    }
    if (this.queued >= this.options.maxQueued) {
      const last = reason === 'changed' ? this.queues.expired.pop() : undefined
      if (!last) return 'refused'
      this.keys.delete(last.key)
      last.dropped?.()
    }
    this.keys.add(refresh.key)
    this.queues[reason].push(refresh)
    return 'queued'
  }

  /** Settles once no refresh runs or waits. */
  idle(): Promise<void> {
    if (this.running === 0 && this.queued === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  /** The gateway closes: the waiting refreshes are dropped (their pages stay as they are), the running ones end by themselves. */
  close(): void {
    this.closed = true
    for (const queue of Object.values(this.queues)) {
      for (const refresh of queue) {
        this.keys.delete(refresh.key)
        refresh.dropped?.()
      }
      queue.length = 0
    }
    this.settleIfIdle()
  }

  private start(refresh: Refresh): void {
    this.running++
    this.most = Math.max(this.most, this.running)
    void refresh
      .run()
      .catch(() => undefined)
      .finally(() => {
        this.running--
        this.keys.delete(refresh.key)
        const next = this.queues.changed.shift() ?? this.queues.expired.shift()
        if (next) this.start(next)
        else this.settleIfIdle()
      })
  }

  private settleIfIdle(): void {
    if (this.running !== 0 || this.queued !== 0) return
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const wake of waiters) wake()
  }
}
