/**
 * The background renders that refresh stored pages: a page past its TTL, or
 * marked stale by a soft purge, is served at once (X-Cache: STALE) and
 * rendered again behind the visitor's back (routes/pages.ts). Without a bound
 * of their own, a crawl over a site whose pages all expired, or a purge of a
 * big section, started one such render per page at once: thousands of
 * requests in the gateway's memory, all in the render queue before the
 * visitors' own misses. Here at most `maxInFlight` run at once, at most
 * `maxQueued` more wait (first come, first served), and a page is refreshed
 * by one render at a time. Past the queue's bound a refresh is not made now:
 * its page stays stale, served at once, and its next request asks again.
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

interface Refresh {
  key: string
  run: () => Promise<void>
}

export class PageRefreshes {
  private readonly keys = new Set<string>()
  private readonly queue: Refresh[] = []
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
    return this.queue.length
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
   * full, or the gateway is closing.
   */
  schedule(key: string, run: () => Promise<void>): RefreshScheduled {
    const outcome = this.scheduled(key, run)
    this.options.onScheduled?.(outcome)
    return outcome
  }

  private scheduled(key: string, run: () => Promise<void>): RefreshScheduled {
    if (this.keys.has(key)) return 'running'
    if (this.closed) return 'refused'
    if (this.running < this.options.maxInFlight) {
      this.keys.add(key)
      this.start({ key, run })
      return 'started'
    }
    if (this.queue.length >= this.options.maxQueued) return 'refused'
    this.keys.add(key)
    this.queue.push({ key, run })
    return 'queued'
  }

  /** Settles once no refresh runs or waits. */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  /** The gateway closes: the waiting refreshes are dropped (their pages stay as they are), the running ones end by themselves. */
  close(): void {
    this.closed = true
    for (const refresh of this.queue) this.keys.delete(refresh.key)
    this.queue.length = 0
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
        const next = this.queue.shift()
        if (next) this.start(next)
        else this.settleIfIdle()
      })
  }

  private settleIfIdle(): void {
    if (this.running !== 0 || this.queue.length !== 0) return
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const wake of waiters) wake()
  }
}
