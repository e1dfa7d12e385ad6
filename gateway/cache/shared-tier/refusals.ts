import type { EventEmitter } from 'node:events'
import type { FastifyBaseLogger } from 'fastify'
import { LOG_INTERVAL_MS, type TierConnection } from './connection.ts'
import type { SharedTierEvents } from './types.ts'

/** Entries (answers, pages) read from Redis that failed their checks: each dropped, and logged at most once per LOG_INTERVAL_MS. */
export class Refusals {
  private refusalsSinceLog = 0
  private lastRefusalLogAt = -Infinity

  constructor(
    private readonly connection: TierConnection,
    private readonly events: EventEmitter<SharedTierEvents>,
    private readonly log: FastifyBaseLogger,
  ) {}

  refused(key: string, stored: string, reason: string): void {
    this.events.emit('refused', key, reason)
    this.connection.told(this.connection.command.dropEntry(this.connection.valueKey(key), stored))
    this.refusalsSinceLog++
    const now = Date.now()
    if (now - this.lastRefusalLogAt < LOG_INTERVAL_MS) return
    this.log.warn({ key, reason, refused: this.refusalsSinceLog }, 'refused an entry from redis; dropped it and asked the CMS')
    this.lastRefusalLogAt = now
    this.refusalsSinceLog = 0
  }
}
