import { randomUUID } from 'node:crypto'
import { type EventEmitter, once } from 'node:events'
import { PAUSE_MS, type TierConnection } from './connection.ts'
import type { SharedTierEvents, SharedTierOptions } from './types.ts'

/** How long a reconnected subscription waits for the command connection to read the purge epoch. */
const CATCH_UP_WAIT_MS = 2000
const SCAN_BATCH = 500
const MAX_SCAN_ROUNDS = 10_000

/**
 * Purges across gateways: entries dropped from Redis (all, or those of tags)
 * and the purge announced on the channel with the purge epoch; purges of
 * other gateways applied to this one's memory, which is emptied when some may
 * have been missed. A purge Redis did not take is kept and sent once it can be.
 */
export class Purges {
  private readonly instance = randomUUID()
  private subscribedOnce = false
  /** The purge epoch this gateway has caught up with, from the channel. */
  private lastEpoch: number | undefined
  /** Purges that could not reach Redis; sent when it is back. */
  private pending: { all: boolean; tags: Set<string>; soft: boolean } | undefined
  private readonly retryTimer: NodeJS.Timeout

  constructor(
    private readonly connection: TierConnection,
    private readonly events: EventEmitter<SharedTierEvents>,
    private readonly options: SharedTierOptions,
  ) {
    const { command, subscriber } = connection
    command.on('ready', () => void this.flushPending())
    subscriber.on('ready', () => void this.catchUp())
    subscriber.on('message', (_channel: string, message: string) => this.received(message))
    subscriber.subscribe(connection.channel).catch((error: Error) => connection.failed(error))
    this.retryTimer = setInterval(() => void this.flushPending(), PAUSE_MS)
    this.retryTimer.unref()
  }

  /** See SharedTier.purge: the entries it dropped in Redis, or undefined while it is still pending. */
  async purge(tags: readonly string[] | undefined, soft = false): Promise<number | undefined> {
    this.addPending(tags, soft)
    return this.flushPending()
  }

  close(): void {
    clearInterval(this.retryTimer)
  }

  /** Redis drops its entries either way; a pending purge is soft for the other gateways' memory only while every purge in it was. */
  private addPending(tags: readonly string[] | undefined, soft = false): void {
    this.pending ??= { all: false, tags: new Set(), soft }
    this.pending.soft &&= soft
    if (tags === undefined) this.pending.all = true
    else for (const tag of tags) this.pending.tags.add(tag)
  }

  /** Sends the pending purge: the entries it dropped in Redis, or undefined while it is still pending. */
  private async flushPending(): Promise<number | undefined> {
    const pending = this.pending
    if (!pending) return 0
    const { connection } = this
    if (!connection.usable()) return undefined
    this.pending = undefined
    try {
      const message = `{"o":${JSON.stringify(this.instance)},"s":${pending.soft},"t":${pending.all ? 'null' : JSON.stringify([...pending.tags])},"e":`
      let dropped: number
      if (pending.all) dropped = await this.purgeEverything(message)
      else {
        const tagKeys = [...pending.tags].map((tag) => connection.tagKey(tag))
        dropped = await connection.command.purgeTags(1 + tagKeys.length, connection.epochKey, ...tagKeys, connection.valueKey(''), connection.channel, message)
      }
      connection.succeeded()
      return dropped
    } catch (error) {
      connection.failed(error as Error)
      if (pending.all) this.addPending(undefined, pending.soft)
      else this.addPending([...pending.tags], pending.soft)
      return undefined
    }
  }

  /** The epoch goes up first, so that no flight begun before the purge stores its answer after it. The entries dropped. */
  private async purgeEverything(message: string): Promise<number> {
    const { command } = this.connection
    const epoch = await command.incr(this.connection.epochKey)
    let dropped = 0
    for (const pattern of [this.connection.valueKey('*'), this.connection.tagKey('*')]) {
      let cursor = '0'
      for (let round = 0; round < MAX_SCAN_ROUNDS; round++) {
        const [next, keys] = await command.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_BATCH)
        if (keys.length > 0) {
          const unlinked = await command.unlink(...keys)
          if (pattern === this.connection.valueKey('*')) dropped += unlinked
        }
        cursor = next
        if (cursor === '0') break
      }
    }
    await command.publish(this.connection.channel, `${message}${epoch}}`)
    return dropped
  }

  private received(message: string): void {
    let parsed: { o?: unknown; t?: unknown; e?: unknown; s?: unknown }
    try {
      parsed = JSON.parse(message) as typeof parsed
    } catch {
      return
    }
    const epoch = typeof parsed.e === 'number' ? parsed.e : undefined
    const missed = epoch !== undefined && this.lastEpoch !== undefined && epoch > this.lastEpoch + 1
    if (epoch !== undefined) this.lastEpoch = Math.max(this.lastEpoch ?? epoch, epoch)
    if (missed) this.purgedElsewhere(undefined)
    else if (parsed.o !== this.instance) this.purgedElsewhere(Array.isArray(parsed.t) ? parsed.t.filter((t): t is string => typeof t === 'string') : undefined, parsed.s === true)
  }

  /**
   * After a reconnect, purges announced meanwhile are lost: a changed epoch empties this gateway's memory. A Redis
   * that came back empty (no epoch: restarted without persistence) carried no purge since it started, so memory
   * stays: emptying every gateway's memory there was a cold start of the whole site after a Redis kill. (A purge
   * made while it was down is still pending in the gateway that took it, which sends it once connected.)
   */
  private async catchUp(): Promise<void> {
    const { command } = this.connection
    let stored: string | null | undefined
    try {
      // The two connections come back independently: the epoch is read once commands can be sent.
      if (command.status !== 'ready') await once(command, 'ready', { signal: AbortSignal.timeout(CATCH_UP_WAIT_MS) })
      stored = await command.get(this.connection.epochKey)
    } catch {
      stored = undefined
    }
    const epoch = stored === undefined ? undefined : Number(stored ?? 0)
    const missed = this.subscribedOnce && stored !== null && (epoch === undefined || epoch !== this.lastEpoch)
    if (missed) {
      this.options.log.info('reconnected to redis; purges may have been missed, memory caches emptied')
      this.purgedElsewhere(undefined)
    }
    this.subscribedOnce = true
    this.lastEpoch = epoch
    this.events.emit('caughtUp', missed ? 'emptied' : 'kept')
  }

  private purgedElsewhere(tags: readonly string[] | undefined, soft = false): void {
    this.options.onPurge(tags, soft)
    this.events.emit('purge', tags)
  }
}
