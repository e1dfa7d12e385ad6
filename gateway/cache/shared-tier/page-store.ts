import { randomUUID } from 'node:crypto'
import type { EventEmitter } from 'node:events'
import type { TierConnection } from './connection.ts'
import { type Locks, POLL_MS, sleep } from './locks.ts'
import { decodePage, encodePage } from './page-codec.ts'
import type { Refusals } from './refusals.ts'
import type { PageClaim, PageLock, SharedPage, SharedTierEvents, SharedTierOptions } from './types.ts'

type PageWait = { page?: SharedPage; outcome: 'stored' | 'released' | 'timeout' | 'unavailable' }

/** Whole rendered pages in Redis, signed, and the locks of their renders: one render per page across gateways. */
export class SharedPageStore {
  constructor(
    private readonly connection: TierConnection,
    private readonly locks: Locks,
    private readonly refusals: Refusals,
    private readonly events: EventEmitter<SharedTierEvents>,
    private readonly options: SharedTierOptions,
  ) {}

  /** Whether pages are shared: a secret to sign them and a TTL to keep them for. */
  get sharesPages(): boolean {
    return this.options.pages?.secret !== undefined && this.options.pages.lifetimeMs > 0
  }

  /** See SharedTier.claimPage. */
  async claimPage(key: string): Promise<PageClaim> {
    const secret = this.options.pages?.secret
    if (secret === undefined || !this.sharesPages || !this.connection.usable()) return { kind: 'unavailable' }
    const { connection } = this
    const pageKey = `page:${key}`
    const lockKey = connection.lockKey(pageKey)
    const token = `L${randomUUID()}`
    const results = await connection.run((pipeline) => pipeline.set(lockKey, token, 'PX', this.locks.leaseMs, 'NX').get(connection.valueKey(pageKey)).get(connection.epochKey))
    if (!results) return { kind: 'unavailable' }
    const [locked, stored, epoch] = results as [string | null, string | null, string | null]
    const page = this.usablePage(pageKey, stored, secret)
    if (page) {
      if (locked === 'OK') void this.locks.settle(lockKey, token, '')
      return { kind: 'stored', page }
    }
    if (locked !== 'OK') return { kind: 'held' }
    this.events.emit('pageLocked', key)
    return { kind: 'locked', lock: this.pageLock(pageKey, lockKey, token, epoch ?? '0', secret) }
  }

  /** See SharedTier.waitForPage. */
  async waitForPage(key: string, ms: number): Promise<SharedPage | undefined> {
    const secret = this.options.pages?.secret
    if (secret === undefined) return undefined
    this.events.emit('pageWaiting', key)
    const { page, outcome } = await this.pollForPage(`page:${key}`, Date.now() + ms, secret)
    this.events.emit('pageWaited', key, outcome)
    return page
  }

  private async pollForPage(pageKey: string, deadline: number, secret: string): Promise<PageWait> {
    const { connection } = this
    while (Date.now() < deadline) {
      if (!connection.usable()) return { outcome: 'unavailable' }
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())))
      const results = await connection.run((pipeline) => pipeline.get(connection.valueKey(pageKey)).get(connection.lockKey(pageKey)))
      if (!results) return { outcome: 'unavailable' }
      const [stored, lock] = results as [string | null, string | null]
      const page = this.usablePage(pageKey, stored, secret)
      if (page) return { page, outcome: 'stored' }
      if (lock === null) return { outcome: 'released' }
    }
    return { outcome: 'timeout' }
  }

  private pageLock(pageKey: string, lockKey: string, token: string, epoch: string, secret: string): PageLock {
    const { connection } = this
    const stopRenewing = this.locks.renewWhileLoading(pageKey, lockKey, token)
    let done = false
    return {
      store: (page) => {
        if (done) return
        done = true
        stopRenewing()
        const tagKeys = page.tags.map((tag) => connection.tagKey(tag))
        const lifetimeMs = this.options.pages?.lifetimeMs ?? 0
        connection.told(
          connection.command.storeEntry(3 + tagKeys.length, connection.valueKey(pageKey), lockKey, connection.epochKey, ...tagKeys, epoch, encodePage(page, secret), lifetimeMs, pageKey, token),
        )
      },
      release: () => {
        if (done) return
        done = true
        stopRenewing()
        void this.locks.settle(lockKey, token, '')
      },
    }
  }

  /** The page a key holds in Redis if it is one a gateway with this secret stored; a refused one is dropped and logged. */
  private usablePage(pageKey: string, stored: string | null, secret: string): SharedPage | undefined {
    if (stored === null) return undefined
    const decoded = decodePage(stored, secret)
    if (decoded.page) return decoded.page
    this.refusals.refused(pageKey, stored, decoded.fault)
    return undefined
  }
}
