import { EventEmitter } from 'node:events'
import type { UpstreamAnswer } from '../craft/client.ts'
import type { LoadedEntry, SharedEntry, SharedEntryRules, SharedStore } from './query-cache.ts'
import { TierConnection } from './shared-tier/connection.ts'
import { Locks } from './shared-tier/locks.ts'
import { SharedPageStore } from './shared-tier/page-store.ts'
import { Purges } from './shared-tier/purges.ts'
import { QueryAnswers } from './shared-tier/query-answers.ts'
import { Refusals } from './shared-tier/refusals.ts'
import type { PageClaim, SharedPage, SharedPurge, SharedTierEvents, SharedTierOptions } from './shared-tier/types.ts'

export type { PageClaim, PageLock, PurgeFanOut, SharedPage, SharedPurge, SharedTierEvents, SharedTierOptions } from './shared-tier/types.ts'

/**
 * The shared tier of the query cache on Redis, for several gateways: entries
 * under the same keys as the in-memory LRU, a short lock per key so that one
 * gateway asks the CMS while the others wait for its answer, and purges that
 * reach every gateway over pub/sub. Every Redis failure is answered by going
 * on without Redis: no request fails because of it.
 *
 * Its parts, in shared-tier/: the connections and their health, the CMS's
 * answers, whole pages, purges, the locks both kinds of entry are loaded
 * under, and the Lua scripts that change several keys at once.
 */
export class SharedTier extends EventEmitter<SharedTierEvents> implements SharedStore {
  private readonly connection: TierConnection
  private readonly answers: QueryAnswers
  private readonly pages: SharedPageStore
  private readonly purges: Purges

  constructor(options: SharedTierOptions) {
    super()
    this.connection = new TierConnection(options, this)
    const locks = new Locks(this.connection, this, options.lockMs)
    const refusals = new Refusals(this.connection, this, options.log)
    this.answers = new QueryAnswers(this.connection, locks, refusals, this, options)
    this.pages = new SharedPageStore(this.connection, locks, refusals, this, options)
    this.purges = new Purges(this.connection, this, options)
  }

  /** Both connections are up: entries are shared and purges reach this gateway. */
  get up(): boolean {
    return this.connection.up
  }

  async ping(): Promise<boolean> {
    return this.connection.ping()
  }

  async read(key: string, accepts: (answer: UpstreamAnswer) => boolean): Promise<SharedEntry | undefined> {
    return this.answers.read(key, accepts)
  }

  /**
   * One CMS request per key across gateways: the gateway that gets the lock
   * loads and stores; the others wait for a fresh entry or the outcome it
   * leaves in the lock. A lock is a lease of LEASE_MS that its holder renews
   * while it loads, for at most lockMs: one that nobody renews lapses within
   * LEASE_MS and the next waiter takes it; a waiter that has waited lockMs
   * (or loses Redis) loads by itself.
   */
  async loadOnce(key: string, rules: SharedEntryRules, load: () => Promise<LoadedEntry>): Promise<{ entry: LoadedEntry; fromShared: boolean }> {
    return this.answers.loadOnce(key, rules, load)
  }

  /** Whether pages are shared: a secret to sign them and a TTL to keep them for. */
  get sharesPages(): boolean {
    return this.pages.sharesPages
  }

  /**
   * A page-cache miss of the one request of this gateway that would render
   * the page: the page if another gateway stored it, else the lock of its
   * render (a lease renewed while it renders, as for the CMS's answers) or
   * word that another gateway holds it. Pages live in the entries' space, so
   * a purge of their tags drops them as it drops the answers.
   */
  async claimPage(key: string): Promise<PageClaim> {
    return this.pages.claimPage(key)
  }

  /**
   * Waits at most `ms` for the page another gateway renders: the page once
   * stored; undefined once its lock is gone without one (that render stored
   * nothing), past `ms`, or without Redis.
   */
  async waitForPage(key: string, ms: number): Promise<SharedPage | undefined> {
    return this.pages.waitForPage(key, ms)
  }

  /**
   * Drops entries from Redis (all, or those of the tags) and tells every
   * gateway; 'pending' when Redis could not be reached: the purge is sent
   * again as soon as it can be.
   */
  async purge(tags: readonly string[] | undefined, soft = false): Promise<SharedPurge> {
    const dropped = await this.purges.purge(tags, soft)
    return dropped === undefined ? { fanOut: 'pending' } : { fanOut: 'ok', dropped }
  }

  /**
   * New connections now: this machine's addresses changed (a network cut and connected again), so the ones open
   * may be bound to an address that is gone and lead nowhere without ever failing. Until they are up, the gateway
   * serves from memory and the CMS, as in any outage.
   */
  reconnect(): void {
    this.connection.reconnect()
  }

  async close(): Promise<void> {
    this.purges.close()
    this.connection.close()
  }
}
