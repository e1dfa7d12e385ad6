import { randomUUID } from 'node:crypto'
import type { EventEmitter } from 'node:events'
import type { UpstreamAnswer } from '../../craft/client.ts'
import { describeUpstreamError, errorFromDescription } from '../../errors.ts'
import type { LoadedEntry, SharedEntry, SharedEntryRules } from '../query-cache.ts'
import type { TierConnection } from './connection.ts'
import { decode, decodeEntry, encode } from './entry-codec.ts'
import { type Locks, POLL_MS, sleep } from './locks.ts'
import type { Refusals } from './refusals.ts'
import type { SharedTierEvents, SharedTierOptions } from './types.ts'

/** The CMS's answers in Redis: read, and loaded once across gateways under a lock. */
export class QueryAnswers {
  constructor(
    private readonly connection: TierConnection,
    private readonly locks: Locks,
    private readonly refusals: Refusals,
    private readonly events: EventEmitter<SharedTierEvents>,
    private readonly options: SharedTierOptions,
  ) {}

  async read(key: string, accepts: (answer: UpstreamAnswer) => boolean): Promise<SharedEntry | undefined> {
    if (!this.connection.usable()) {
      this.lookedUp('error')
      return undefined
    }
    let stored: string | null
    try {
      stored = await this.connection.command.get(this.connection.valueKey(key))
      this.connection.succeeded()
    } catch (error) {
      this.connection.failed(error as Error)
      this.lookedUp('error')
      return undefined
    }
    const entry = this.usableEntry(key, stored, accepts)
    this.lookedUp(entry ? 'hit' : 'miss')
    return entry
  }

  /** See SharedTier.loadOnce. */
  async loadOnce(key: string, rules: SharedEntryRules, load: () => Promise<LoadedEntry>): Promise<{ entry: LoadedEntry; fromShared: boolean }> {
    const direct = async () => ({ entry: await load(), fromShared: false })
    if (!this.connection.usable()) return direct()
    const { connection } = this
    const lockKey = connection.lockKey(key)
    const token = `L${randomUUID()}`
    const deadline = Date.now() + this.options.lockMs
    let waitReported = false
    for (;;) {
      const results = await connection.run((pipeline) =>
        pipeline.set(lockKey, token, 'PX', this.locks.leaseMs, 'NX').get(connection.valueKey(key)).get(lockKey).get(connection.epochKey),
      )
      if (!results) return direct()
      const [locked, stored, lock, epoch] = results as [string | null, string | null, string | null, string | null]
      const value = this.usableEntry(key, stored, rules.accepts)
      if (value && rules.isFresh(value.fetchedAt)) {
        if (locked === 'OK') void this.locks.settle(lockKey, token, '')
        return { entry: { ...value, storable: true }, fromShared: true }
      }
      if (locked === 'OK') {
        this.events.emit('locked', key)
        return this.loadAsHolder(key, token, epoch ?? '0', load)
      }
      const outcome = this.outcomeIn(lock)
      if (outcome) return outcome
      if (Date.now() >= deadline) return direct()
      if (!waitReported) this.events.emit('waiting', key)
      waitReported = true
      await sleep(POLL_MS)
      if (!this.connection.usable()) return direct()
    }
  }

  /** What the holder of a lock left in it when it stored nothing: its answer, or its error (thrown). */
  private outcomeIn(lock: string | null): { entry: LoadedEntry; fromShared: boolean } | undefined {
    if (lock?.startsWith('A')) {
      const answered = decode(lock.slice(1)).entry
      if (answered) return { entry: { ...answered, storable: false }, fromShared: true }
    }
    if (lock?.startsWith('E')) throw this.errorFrom(lock.slice(1))
    return undefined
  }

  private async loadAsHolder(key: string, token: string, epoch: string, load: () => Promise<LoadedEntry>): Promise<{ entry: LoadedEntry; fromShared: boolean }> {
    const { connection } = this
    const lockKey = connection.lockKey(key)
    const stopRenewing = this.locks.renewWhileLoading(key, lockKey, token)
    let entry: LoadedEntry
    try {
      entry = await load()
    } catch (error) {
      stopRenewing()
      // Only a coded upstream error's code and message: another gateway's caller must not read this one's insides.
      await this.locks.settle(lockKey, token, `E${JSON.stringify(describeUpstreamError(error) ?? {})}`)
      throw error
    }
    stopRenewing()
    if (!entry.storable) {
      await this.locks.settle(lockKey, token, `A${encode(entry)}`)
      return { entry, fromShared: false }
    }
    try {
      const tagKeys = entry.tags.map((tag) => connection.tagKey(tag))
      await connection.command.storeEntry(3 + tagKeys.length, connection.valueKey(key), lockKey, connection.epochKey, ...tagKeys, epoch, encode(entry), this.options.entryLifetimeMs, key, token)
      connection.succeeded()
    } catch (error) {
      connection.failed(error as Error)
    }
    return { entry, fromShared: false }
  }

  /** The entry a key holds in Redis if it passes the checks; else undefined, and a refused one is dropped and logged. */
  private usableEntry(key: string, stored: string | null, accepts: (answer: UpstreamAnswer) => boolean): SharedEntry | undefined {
    if (stored === null) return undefined
    const decoded = decodeEntry(stored, accepts)
    if (decoded.entry) return decoded.entry
    this.refusals.refused(key, stored, decoded.fault)
    return undefined
  }

  private errorFrom(marker: string): Error {
    try {
      return errorFromDescription(JSON.parse(marker))
    } catch {
      // a marker from another version: a failure that says nothing more
      return errorFromDescription(undefined)
    }
  }

  private lookedUp(result: 'hit' | 'miss' | 'error'): void {
    this.options.onLookup?.(result)
    this.events.emit('lookup', result)
  }
}
