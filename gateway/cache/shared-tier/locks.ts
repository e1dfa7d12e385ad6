import type { EventEmitter } from 'node:events'
import type { TierConnection } from './connection.ts'
import type { SharedTierEvents } from './types.ts'

/** Lock waiters look again this often. */
export const POLL_MS = 20
/**
 * A lock is a lease this long, extended every RENEW_MS by the gateway holding it while its CMS call runs (for at
 * most lockMs). A lock nobody works on lapses within it: that of a gateway that died, or one set by a lock command
 * that timed out here but still ran in Redis later (a paused Redis resumed), which nobody renews.
 */
const LEASE_MS = 500
const RENEW_MS = 100
/** A finished flight that stored nothing leaves its answer or error in the lock this long, for those that waited on it. */
const OUTCOME_MS = 500

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The locks of keys (a CMS answer's, a page's render): one gateway does the work, the others wait for it. */
export class Locks {
  constructor(
    private readonly connection: TierConnection,
    private readonly events: EventEmitter<SharedTierEvents>,
    private readonly lockMs: number,
  ) {}

  get leaseMs(): number {
    return Math.min(LEASE_MS, this.lockMs)
  }

  /** Replaces the lock with the flight's outcome ('' frees it), if it is still ours. */
  async settle(lockKey: string, token: string, outcome: string): Promise<void> {
    try {
      await this.connection.command.settleLock(lockKey, token, outcome, OUTCOME_MS)
      this.connection.succeeded()
    } catch (error) {
      this.connection.failed(error as Error)
    }
  }

  /** Extends the lease of a lock this gateway holds every RENEW_MS until stopped, the lock is lost, or lockMs is over. */
  renewWhileLoading(key: string, lockKey: string, token: string): () => void {
    const until = Date.now() + this.lockMs
    let renewing = false
    const stop = (): void => clearInterval(timer)
    const timer = setInterval(() => {
      if (Date.now() + RENEW_MS >= until) return stop()
      if (renewing || !this.connection.usable()) return
      renewing = true
      this.connection.command
        .renewLock(lockKey, token, Math.min(this.leaseMs, until - Date.now()))
        .then(
          (kept) => {
            this.connection.succeeded()
            if (kept === 1) this.events.emit('renewed', key)
            else stop()
          },
          (error: Error) => this.connection.failed(error),
        )
        .finally(() => {
          renewing = false
        })
    }, RENEW_MS)
    timer.unref()
    return stop
  }
}
