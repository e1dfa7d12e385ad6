import { LRUCache } from 'lru-cache'

export interface WorkBudgetOptions {
  /** Units a client may spend at once, and gets back over each window (CLIENT_WORK_BUDGET). */
  units: number
  windowMs: number
  /** Clients remembered at once; the one unseen longest is forgotten first (and starts again with a full budget). */
  maxClients: number
  now?: () => number
}

interface Bucket {
  balance: number
  at: number
}

/**
 * What each client may make the gateway do that no cache answers: a token
 * bucket of work units per client, full at `units`, refilled at `units` per
 * window. Work that must happen once begun (a render's CMS calls) is charged
 * as it happens and may leave the balance below zero: the client then waits
 * for its debt to be paid back before it is admitted again.
 */
export class WorkBudget {
  private readonly clients: LRUCache<string, Bucket>
  private readonly now: () => number
  private readonly perMs: number

  constructor(private readonly options: WorkBudgetOptions) {
    this.now = options.now ?? Date.now
    this.perMs = options.units / options.windowMs
    this.clients = new LRUCache<string, Bucket>({ max: options.maxClients })
  }

  /** Clients remembered now (at most maxClients). */
  get size(): number {
    return this.clients.size
  }

  /** The client's balance now, refilled for the time since it was last seen. */
  balance(client: string): number {
    const bucket = this.clients.get(client)
    if (!bucket) return this.options.units
    return Math.min(this.options.units, bucket.balance + (this.now() - bucket.at) * this.perMs)
  }

  /** Seconds until the client has `units` again; undefined when it has them now. */
  refused(client: string, units = 1): number | undefined {
    const missing = units - this.balance(client)
    return missing <= 0 ? undefined : Math.max(1, Math.ceil(missing / this.perMs / 1000))
  }

  /** Takes `units` when the client has them (undefined), else takes nothing and tells the seconds until it will. */
  take(client: string, units = 1): number | undefined {
    const refused = this.refused(client, units)
    if (refused === undefined) this.charge(client, units)
    return refused
  }

  /** Charges work already under way; the balance may go below zero, to at most one budget of debt. */
  charge(client: string, units = 1): void {
    const balance = Math.max(-this.options.units, this.balance(client) - units)
    this.clients.set(client, { balance, at: this.now() })
  }
}
