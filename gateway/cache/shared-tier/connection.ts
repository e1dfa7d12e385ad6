import type { EventEmitter } from 'node:events'
import { Redis, type RedisOptions } from 'ioredis'
import { type TierCommands, withTierCommands } from './scripts.ts'
import type { SharedTierEvents, SharedTierOptions } from './types.ts'

/** Failures in a row after which Redis is left alone for PAUSE_MS, so a hanging Redis costs one timeout per pause, not one per request. */
const FAILURES_BEFORE_PAUSE = 3
export const PAUSE_MS = 1000
/** Redis trouble is logged at most once per this interval. */
export const LOG_INTERVAL_MS = 30_000

/** A pipeline of commands on the command connection. */
export type Pipeline = ReturnType<Redis['pipeline']>

/**
 * The tier's two connections to Redis (commands, and the purge channel's
 * subscription), the names of its keys, and its health: failures counted,
 * Redis left alone for a while after several in a row, an outage logged once
 * and its end too. Every part of the tier tells it how each call went.
 */
export class TierConnection {
  readonly command: Redis & TierCommands
  readonly subscriber: Redis
  readonly channel: string
  readonly epochKey: string
  private failuresInRow = 0
  private pausedUntil = 0
  private failuresSinceLog = 0
  private lastLogAt = -Infinity
  /** A 'redis failing' line went out: the next time both connections are up, say so. */
  private outageLogged = false
  private reportedUp = false

  constructor(
    private readonly options: SharedTierOptions,
    private readonly events: EventEmitter<SharedTierEvents>,
  ) {
    this.channel = `${options.keyPrefix}purge`
    this.epochKey = `${options.keyPrefix}epoch`
    const common: RedisOptions = {
      connectTimeout: Math.max(500, options.commandTimeoutMs * 10),
      retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 5), 1000),
      lazyConnect: false,
    }
    this.command = withTierCommands(
      new Redis(options.url.href, {
        ...common,
        commandTimeout: options.commandTimeoutMs,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        autoResendUnfulfilledCommands: false,
      }),
    )
    // The subscription waits for Redis however long it takes, and ioredis renews it after every reconnect.
    this.subscriber = new Redis(options.url.href, { ...common, maxRetriesPerRequest: null })

    for (const client of [this.command, this.subscriber]) {
      client.on('error', (error: Error) => this.failed(error))
      client.on('close', () => this.reportState())
      client.on('ready', () => this.reportState())
    }
    this.command.on('ready', () => {
      this.failuresInRow = 0
      this.pausedUntil = 0
    })
  }

  /** Both connections are up: entries are shared and purges reach this gateway. */
  get up(): boolean {
    return this.command.status === 'ready' && this.subscriber.status === 'ready'
  }

  async ping(): Promise<boolean> {
    if (this.command.status !== 'ready') return false
    try {
      return (await this.command.ping()) === 'PONG'
    } catch (error) {
      // A failure like any command's: readiness probes alone find a connection that leads nowhere.
      this.failed(error as Error)
      return false
    }
  }

  /**
   * One pipeline's commands, their values in order; undefined when Redis or
   * any command failed (told to the tier's health, as every call is).
   */
  async run(commands: (pipeline: Pipeline) => Pipeline): Promise<unknown[] | undefined> {
    try {
      const results = await commands(this.command.pipeline()).exec()
      const failure = results?.find(([error]) => error)?.[0]
      if (!results || failure) throw failure ?? new Error('redis pipeline answered nothing')
      this.succeeded()
      return results.map(([, value]) => value)
    } catch (error) {
      this.failed(error as Error)
      return undefined
    }
  }

  /** A command left to run by itself: its outcome told to the tier's health. */
  told(command: Promise<unknown>): void {
    command.then(
      () => this.succeeded(),
      (error: Error) => this.failed(error),
    )
  }

  /** New connections now (see SharedTier.reconnect). */
  reconnect(): void {
    this.command.disconnect(true)
    this.subscriber.disconnect(true)
  }

  close(): void {
    this.command.disconnect()
    this.subscriber.disconnect()
  }

  usable(): boolean {
    return this.command.status === 'ready' && Date.now() >= this.pausedUntil
  }

  succeeded(): void {
    this.failuresInRow = 0
  }

  failed(error: Error): void {
    this.options.onCommandError?.()
    this.events.emit('failure', error)
    this.failuresSinceLog++
    if (++this.failuresInRow >= FAILURES_BEFORE_PAUSE) {
      this.pausedUntil = Date.now() + PAUSE_MS
      this.failuresInRow = 0
      // Timeouts in a row on a connection ioredis still calls ready: perhaps a socket that leads nowhere (this
      // gateway cut from its network and given a new address, a Redis gone without a reset), which would stay
      // "ready" for ever. New connections find out: a Redis that is only slow answers them as it did these.
      if (error.message === 'Command timed out' && this.command.status === 'ready') this.reconnect()
    }
    this.logOutage(error)
  }

  valueKey(key: string): string {
    return `${this.options.keyPrefix}q:${key}`
  }

  lockKey(key: string): string {
    return `${this.options.keyPrefix}l:${key}`
  }

  tagKey(tag: string): string {
    return `${this.options.keyPrefix}t:${tag}`
  }

  private reportState(): void {
    const up = this.up
    if (up === this.reportedUp) return
    this.reportedUp = up
    // The end of an outage is logged once for each time its start was: both connections flapping while they
    // come back (a reconnect that times out on a loaded machine) would otherwise say so twice.
    if (up && this.outageLogged) {
      this.options.log.info('redis reachable again; the shared cache tier is back in use')
      this.outageLogged = false
    }
    // A connection that drops before any command fails is an outage too: without this, one that the lookups only
    // skipped (usable() false) was never logged, and so neither was its end.
    if (!up) this.logOutage(undefined)
    this.events.emit(up ? 'up' : 'down')
  }

  /** The outage's line, at most once per LOG_INTERVAL_MS, whether a command failed or a connection went. */
  private logOutage(error: Error | undefined): void {
    const now = Date.now()
    if (now - this.lastLogAt < LOG_INTERVAL_MS) return
    this.options.log.warn({ ...(error ? { err: error } : {}), failures: this.failuresSinceLog }, 'redis failing; serving from memory and the CMS')
    this.lastLogAt = now
    this.failuresSinceLog = 0
    this.outageLogged = true
  }
}
