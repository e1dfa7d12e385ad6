/** What became of one request for a slot: at once, after a wait in the queue, or refused (queue full, or waited its time out). */
export type GateOutcome = 'admitted' | 'queued' | 'refused'

export interface ConcurrencyGateOptions {
  /** Slots in flight at once; asked each time, since it may follow the number of renderers. */
  limit: () => number
  /** Longest wait in the queue for a slot (ADMISSION_QUEUE_MS). */
  queueMs: number
  /** Most waiting at once (ADMISSION_QUEUE_LENGTH); past it a request is refused at once. */
  queueLength: number
  /** The error a refused request gets. */
  refusal: () => Error
  onOutcome?: (outcome: GateOutcome) => void
}

interface Waiter {
  admit: (release: () => void) => void
  refuse: (error: Error) => void
  /** When its wait runs out (performance.now()). */
  until: number
}

/**
 * At most `limit` of something in flight. Past that a request waits in a
 * bounded queue for a short, bounded time, first come first served, and is
 * then refused: a slow tier gets no more than it can answer, and a caller
 * learns within `queueMs` that it must make do without it.
 */
export class ConcurrencyGate {
  private active = 0
  private readonly waiters: Waiter[] = []
  /** Set while some request waits: it fires when the first one's wait runs out. */
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly options: ConcurrencyGateOptions) {}

  get inFlight(): number {
    return this.active
  }

  get waiting(): number {
    return this.waiters.length
  }

  /** A slot: the returned release gives it back (once, however often it is called). */
  enter(): Promise<() => void> {
    if (this.active < this.options.limit()) {
      this.active++
      this.options.onOutcome?.('admitted')
      return Promise.resolve(this.releaseOnce())
    }
    if (this.waiters.length >= this.options.queueLength) {
      this.options.onOutcome?.('refused')
      return Promise.reject(this.options.refusal())
    }
    return new Promise((resolve, reject) => {
      this.waiters.push({ admit: resolve, refuse: reject, until: performance.now() + this.options.queueMs })
      this.timer ??= setTimeout(() => this.refuseExpired(), this.options.queueMs)
    })
  }

  /**
   * The waits that ran out, refused. Every wait is queueMs long and the queue
   * is first come first served, so the first waiter's ends first: one timer
   * for the queue, set for its first waiter, instead of one per waiter.
   */
  private refuseExpired(): void {
    this.timer = undefined
    const now = performance.now()
    while (this.waiters.length > 0 && (this.waiters[0] as Waiter).until <= now) {
      const expired = this.waiters.shift() as Waiter
      this.options.onOutcome?.('refused')
      expired.refuse(this.options.refusal())
    }
    const first = this.waiters[0]
    if (first) this.timer = setTimeout(() => this.refuseExpired(), Math.max(1, Math.ceil(first.until - now)))
  }

  /** Runs `work` in a slot, given back when the work settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.enter()
    try {
      return await work()
    } finally {
      release()
    }
  }

  private releaseOnce(): () => void {
    let released = false
    return () => {
      if (released) return
      released = true
      this.active--
      this.admitNext()
    }
  }

  private admitNext(): void {
    while (this.active < this.options.limit()) {
      const next = this.waiters.shift()
      if (!next) {
        clearTimeout(this.timer)
        this.timer = undefined
        return
      }
      this.active++
      this.options.onOutcome?.('queued')
      next.admit(this.releaseOnce())
    }
  }
}
