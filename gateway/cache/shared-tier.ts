import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import { EventEmitter, once } from 'node:events'
import type { FastifyBaseLogger } from 'fastify'
import { Redis, type RedisOptions } from 'ioredis'
import type { UpstreamAnswer } from '../craft/client.ts'
import { describeUpstreamError, errorFromDescription } from '../errors.ts'
import type { LoadedEntry, SharedEntry, SharedEntryRules, SharedStore } from './query-cache.ts'

export interface SharedTierOptions {
  url: URL
  commandTimeoutMs: number
  lockMs: number
  keyPrefix: string
  /** How long Redis keeps an entry: the TTL plus the longer of the stale windows. */
  entryLifetimeMs: number
  /**
   * Whole pages are shared too (one render per page across gateways), kept
   * while fresh (PAGE_CACHE_TTL_MS) and signed with this secret
   * (RENDER_SECRET), since Redis holds what anyone wrote there and a page is
   * served as it is. Without a secret or a TTL, pages are not shared.
   */
  pages?: { secret: string | undefined; lifetimeMs: number }
  log: FastifyBaseLogger
  /** Another gateway purged (undefined: everything, or purges may have been missed). */
  onPurge: (tags: readonly string[] | undefined, soft?: boolean) => void
  onLookup?: (result: 'hit' | 'miss' | 'error') => void
  onCommandError?: () => void
}

export type PurgeFanOut = 'ok' | 'pending'

/** What a purge did in Redis: told every gateway ('ok', and how many entries it dropped there) or is still to ('pending'). */
export type SharedPurge = { fanOut: 'ok'; dropped: number } | { fanOut: 'pending'; dropped?: undefined }

/** What the tier tells those who watch it (tests, mostly): each event is a change of state, never a timer. */
export interface SharedTierEvents {
  /** Both connections are up again ('up') or one was lost ('down'): what `up` answers changed. */
  up: []
  down: []
  lookup: [result: 'hit' | 'miss' | 'error']
  /** A command or a connection failed; the tier goes on without Redis. */
  failure: [error: Error]
  /** A purge from another gateway (undefined: everything) was applied to this gateway's memory. */
  purge: [tags: readonly string[] | undefined]
  /** The subscription is back and the purge epoch was read: memory was emptied (purges may have been missed) or kept. */
  caughtUp: [memory: 'emptied' | 'kept']
  /** This gateway holds the lock of a key and asks the CMS. */
  locked: [key: string]
  /** Another gateway holds the lock of a key: this one waits for its answer. */
  waiting: [key: string]
  /** This gateway, still asking the CMS, extended the lease of its lock on a key. */
  renewed: [key: string]
  /** An entry in Redis failed the checks a CMS answer passes: dropped, and the key is loaded as on a miss. */
  refused: [key: string, reason: string]
  /** This gateway renders a page the others wait for (`locked`), or waits for another's render of it (`waiting`). */
  pageLocked: [key: string]
  pageWaiting: [key: string]
  /** A wait for another gateway's page is over: the page came, its lock went without one (given up, or lapsed), the wait's bound passed, or Redis failed. */
  pageWaited: [key: string, outcome: 'stored' | 'released' | 'timeout' | 'unavailable']
}

/** A whole rendered page as the gateways share it. */
export interface SharedPage {
  statusCode: number
  headers: Record<string, string>
  body: Buffer
  tags: readonly string[]
  /** When it was stored (this gateway's clock at most): its age counts against its TTL in every gateway. */
  storedAt: number
}

/** The render of a page this gateway holds the lock of: store its page (if no purge came since the claim), or give the lock up. */
export interface PageLock {
  store(page: SharedPage): void
  release(): void
}

/**
 * A page-cache miss asked Redis: the page another gateway stored; the lock,
 * so this gateway renders it for all; another gateway renders it (wait with
 * `waitForPage`); or no Redis to ask (render as without one).
 */
export type PageClaim = { kind: 'stored'; page: SharedPage } | { kind: 'locked'; lock: PageLock } | { kind: 'held' } | { kind: 'unavailable' }

/** Lock waiters look again this often. */
const POLL_MS = 20
/**
 * A lock is a lease this long, extended every RENEW_MS by the gateway holding it while its CMS call runs (for at
 * most lockMs). A lock nobody works on lapses within it: that of a gateway that died, or one set by a lock command
 * that timed out here but still ran in Redis later (a paused Redis resumed), which nobody renews.
 */
const LEASE_MS = 500
const RENEW_MS = 100
/** How far in the future an entry's fetch time may lie, for clocks of gateways that differ a little. */
const CLOCK_SKEW_MS = 2000
/** A finished flight that stored nothing leaves its answer or error in the lock this long, for those that waited on it. */
const OUTCOME_MS = 500
/** Failures in a row after which Redis is left alone for PAUSE_MS, so a hanging Redis costs one timeout per pause, not one per request. */
const FAILURES_BEFORE_PAUSE = 3
const PAUSE_MS = 1000
/** Redis trouble is logged at most once per this interval. */
const LOG_INTERVAL_MS = 30_000
/** How long a reconnected subscription waits for the command connection to read the purge epoch. */
const CATCH_UP_WAIT_MS = 2000
const SCAN_BATCH = 500
const MAX_SCAN_ROUNDS = 10_000

/**
 * Stores an entry and its tag memberships unless a purge came after the flight began; frees the lock either way.
 * A tag set lives as long as the longest-lived entry it names: its expiry is extended, never shortened (a page
 * stored for 30 s must not take with it, 30 s later, the set that a day-long answer needs to be purged by).
 */
const STORE_SCRIPT = `
if (redis.call('GET', KEYS[3]) or '0') == ARGV[1] then
  local lifetime = tonumber(ARGV[3])
  redis.call('SET', KEYS[1], ARGV[2], 'PX', lifetime)
  for i = 4, #KEYS do
    redis.call('SADD', KEYS[i], ARGV[4])
    if redis.call('PTTL', KEYS[i]) < lifetime then redis.call('PEXPIRE', KEYS[i], lifetime) end
  end
end
if redis.call('GET', KEYS[2]) == ARGV[5] then redis.call('DEL', KEYS[2]) end
return 1`

/** Replaces the lock with the flight's outcome, if the lock is still ours. */
const SETTLE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
end
return 1`

/** Extends the lock's lease, if the lock is still ours; 1 when it was. */
const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`

/** Deletes a refused entry, unless another gateway has stored a new one since it was read. */
const DROP_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`

/** Drops the entries of the given tag sets and the sets, bumps the purge epoch and announces it. */
const PURGE_TAGS_SCRIPT = `
local epoch = redis.call('INCR', KEYS[1])
local count = 0
for i = 2, #KEYS do
  for _, member in ipairs(redis.call('SMEMBERS', KEYS[i])) do
    count = count + redis.call('UNLINK', ARGV[1] .. member)
  end
  redis.call('UNLINK', KEYS[i])
end
redis.call('PUBLISH', ARGV[2], ARGV[3] .. epoch .. '}')
return count`

interface TierCommands {
  storeEntry(...args: (string | number)[]): Promise<unknown>
  settleLock(key: string, token: string, outcome: string, ms: number): Promise<unknown>
  renewLock(key: string, token: string, ms: number): Promise<number>
  dropEntry(key: string, stored: string): Promise<unknown>
  purgeTags(...args: (string | number)[]): Promise<number>
}

/** `[fetchedAt,status,tags]` on one line, then the answer's bytes as Craft sent them. */
function encode(entry: SharedEntry): string {
  return `${JSON.stringify([entry.fetchedAt, entry.answer.status, entry.tags])}\n${entry.answer.raw.toString('utf8')}`
}

/** What was read, as an entry, or why it is not one: Redis holds what anyone wrote there, not only what a gateway stored. */
type Decoded = { entry: SharedEntry; fault?: undefined } | { entry?: undefined; fault: string }

/** The shape of an entry (or of an answer left in a lock), as the Craft client checks an answer's shape. */
function decode(stored: string): Decoded {
  const cut = stored.indexOf('\n')
  if (cut === -1) return { fault: 'no header line' }
  let header: unknown
  let body: unknown
  try {
    header = JSON.parse(stored.slice(0, cut))
    body = JSON.parse(stored.slice(cut + 1))
  } catch {
    return { fault: 'not JSON' }
  }
  if (!Array.isArray(header) || header.length !== 3) return { fault: 'header not [fetchedAt,status,tags]' }
  const [fetchedAt, status, tags] = header as unknown[]
  if (typeof fetchedAt !== 'number' || !Number.isFinite(fetchedAt) || fetchedAt <= 0) return { fault: 'fetchedAt not a time' }
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) return { fault: 'status not an HTTP status' }
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) return { fault: 'tags not strings' }
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !('data' in body || 'errors' in body)) return { fault: 'not a GraphQL answer' }
  const answer: UpstreamAnswer = { status, body: body as UpstreamAnswer['body'], raw: Buffer.from(stored.slice(cut + 1)) }
  return { entry: { answer, fetchedAt, tags: tags as string[] } }
}

/**
 * An entry as it may be used: of the right shape, an answer this cache would have stored (a good status, no
 * errors, the operation's root fields: `accepts`), fetched no later than now (give or take CLOCK_SKEW_MS).
 */
function decodeEntry(stored: string, accepts: (answer: UpstreamAnswer) => boolean): Decoded {
  const decoded = decode(stored)
  if (!decoded.entry) return decoded
  const { entry } = decoded
  const now = Date.now()
  if (entry.fetchedAt > now + CLOCK_SKEW_MS) return { fault: 'fetchedAt in the future' }
  if (!accepts(entry.answer)) return { fault: 'not an answer that is stored (status, errors or root fields)' }
  // Within the skew, a fetch time ahead of this clock counts as now: an entry is never fresher than one fetched now.
  return { entry: { ...entry, fetchedAt: Math.min(entry.fetchedAt, now) } }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const PAGE_TAG = /^[A-Za-z0-9_:.-]{1,200}$/

/** An HMAC of the entry under RENDER_SECRET, told apart by its context from the render requests' signatures under the same secret. */
const pageSignature = (rest: string, secret: string): string => createHmac('sha256', secret).update('havenborg shared page\n').update(rest).digest('hex')

/** `P <hmac>` on the first line, `[storedAt,statusCode,headers,tags]` on the second, then the page's bytes. */
function encodePage(page: SharedPage, secret: string): string {
  const rest = `${JSON.stringify([page.storedAt, page.statusCode, page.headers, page.tags])}\n${page.body.toString('utf8')}`
  return `P ${pageSignature(rest, secret)}\n${rest}`
}

/** A page written by a gateway with the same secret, of the shape one stores: anything else is refused (and why). */
function decodePage(stored: string, secret: string): { page: SharedPage; fault?: undefined } | { page?: undefined; fault: string } {
  const first = stored.indexOf('\n')
  const second = first === -1 ? -1 : stored.indexOf('\n', first + 1)
  if (!stored.startsWith('P ') || second === -1) return { fault: 'not a page entry' }
  const rest = stored.slice(first + 1)
  const given = Buffer.from(stored.slice(2, first), 'utf8')
  const expected = Buffer.from(pageSignature(rest, secret), 'utf8')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { fault: 'signature does not match' }
  let header: unknown
  try {
    header = JSON.parse(stored.slice(first + 1, second))
  } catch {
    return { fault: 'header not JSON' }
  }
  if (!Array.isArray(header) || header.length !== 4) return { fault: 'header not [storedAt,statusCode,headers,tags]' }
  const [storedAt, statusCode, headers, tags] = header as unknown[]
  if (typeof storedAt !== 'number' || !Number.isFinite(storedAt) || storedAt > Date.now() + CLOCK_SKEW_MS) return { fault: 'storedAt not a time before now' }
  if (statusCode !== 200) return { fault: 'not a 200 page' }
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers) || !Object.values(headers).every((value) => typeof value === 'string')) return { fault: 'headers not strings' }
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string' && PAGE_TAG.test(tag))) return { fault: 'tags not tags' }
  const body = Buffer.from(stored.slice(second + 1), 'utf8')
  return { page: { storedAt: Math.min(storedAt, Date.now()), statusCode, headers: headers as Record<string, string>, tags: tags as string[], body } }
}

/**
 * The shared tier of the query cache on Redis, for several gateways: entries
 * under the same keys as the in-memory LRU, a short lock per key so that one
 * gateway asks the CMS while the others wait for its answer, and purges that
 * reach every gateway over pub/sub. Every Redis failure is answered by going
 * on without Redis: no request fails because of it.
 */
export class SharedTier extends EventEmitter<SharedTierEvents> implements SharedStore {
  private readonly command: Redis & TierCommands
  private readonly subscriber: Redis
  private readonly instance = randomUUID()
  private readonly channel: string
  private readonly epochKey: string
  private failuresInRow = 0
  private pausedUntil = 0
  private failuresSinceLog = 0
  private lastLogAt = -Infinity
  private refusalsSinceLog = 0
  private lastRefusalLogAt = -Infinity
  /** A 'redis failing' line went out: the next time both connections are up, say so. */
  private outageLogged = false
  private reportedUp = false
  private subscribedOnce = false
  /** The purge epoch this gateway has caught up with, from the channel. */
  private lastEpoch: number | undefined
  /** Purges that could not reach Redis; sent when it is back. */
  private pending: { all: boolean; tags: Set<string>; soft: boolean } | undefined
  private readonly retryTimer: NodeJS.Timeout

  constructor(private readonly options: SharedTierOptions) {
    super()
    this.channel = `${options.keyPrefix}purge`
    this.epochKey = `${options.keyPrefix}epoch`
    const common: RedisOptions = {
      connectTimeout: Math.max(500, options.commandTimeoutMs * 10),
      retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 5), 1000),
      lazyConnect: false,
    }
    const command = new Redis(options.url.href, {
      ...common,
      commandTimeout: options.commandTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
    })
    command.defineCommand('storeEntry', { lua: STORE_SCRIPT })
    command.defineCommand('settleLock', { lua: SETTLE_SCRIPT, numberOfKeys: 1 })
    command.defineCommand('renewLock', { lua: RENEW_SCRIPT, numberOfKeys: 1 })
    command.defineCommand('dropEntry', { lua: DROP_SCRIPT, numberOfKeys: 1 })
    command.defineCommand('purgeTags', { lua: PURGE_TAGS_SCRIPT })
    this.command = command as Redis & TierCommands
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
      void this.flushPending()
    })
    this.subscriber.on('ready', () => void this.catchUp())
    this.subscriber.on('message', (_channel: string, message: string) => this.received(message))
    this.subscriber.subscribe(this.channel).catch((error: Error) => this.failed(error))
    this.retryTimer = setInterval(() => void this.flushPending(), PAUSE_MS)
    this.retryTimer.unref()
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

  async read(key: string, accepts: (answer: UpstreamAnswer) => boolean): Promise<SharedEntry | undefined> {
    if (!this.usable()) {
      this.lookedUp('error')
      return undefined
    }
    let stored: string | null
    try {
      stored = await this.command.get(this.valueKey(key))
      this.succeeded()
    } catch (error) {
      this.failed(error as Error)
      this.lookedUp('error')
      return undefined
    }
    const entry = this.usableEntry(key, stored, accepts)
    this.lookedUp(entry ? 'hit' : 'miss')
    return entry
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
    const direct = async () => ({ entry: await load(), fromShared: false })
    if (!this.usable()) return direct()
    const lockKey = this.lockKey(key)
    const token = `L${randomUUID()}`
    const deadline = Date.now() + this.options.lockMs
    let waitReported = false
    for (;;) {
      const results = await this.run((pipeline) => pipeline.set(lockKey, token, 'PX', this.leaseMs, 'NX').get(this.valueKey(key)).get(lockKey).get(this.epochKey))
      if (!results) return direct()
      const [locked, stored, lock, epoch] = results as [string | null, string | null, string | null, string | null]
      const value = this.usableEntry(key, stored, rules.accepts)
      if (value && rules.isFresh(value.fetchedAt)) {
        if (locked === 'OK') void this.settle(lockKey, token, '')
        return { entry: { ...value, storable: true }, fromShared: true }
      }
      if (locked === 'OK') {
        this.emit('locked', key)
        return this.loadAsHolder(key, token, epoch ?? '0', load)
      }
      if (lock?.startsWith('A')) {
        const answered = decode(lock.slice(1)).entry
        if (answered) return { entry: { ...answered, storable: false }, fromShared: true }
      }
      if (lock?.startsWith('E')) throw this.errorFrom(lock.slice(1))
      if (Date.now() >= deadline) return direct()
      if (!waitReported) this.emit('waiting', key)
      waitReported = true
      await sleep(POLL_MS)
      if (!this.usable()) return direct()
    }
  }

  /** Whether pages are shared: a secret to sign them and a TTL to keep them for. */
  get sharesPages(): boolean {
    return this.options.pages?.secret !== undefined && this.options.pages.lifetimeMs > 0
  }

  /**
   * One pipeline's commands, their values in order; undefined when Redis or
   * any command failed (told to the tier's health, as every call is).
   */
  private async run(commands: (pipeline: ReturnType<Redis['pipeline']>) => ReturnType<Redis['pipeline']>): Promise<unknown[] | undefined> {
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

  /**
   * A page-cache miss of the one request of this gateway that would render
   * the page: the page if another gateway stored it, else the lock of its
   * render (a lease renewed while it renders, as for the CMS's answers) or
   * word that another gateway holds it. Pages live in the entries' space, so
   * a purge of their tags drops them as it drops the answers.
   */
  async claimPage(key: string): Promise<PageClaim> {
    const secret = this.options.pages?.secret
    if (secret === undefined || !this.sharesPages || !this.usable()) return { kind: 'unavailable' }
    const pageKey = `page:${key}`
    const lockKey = this.lockKey(pageKey)
    const token = `L${randomUUID()}`
    const results = await this.run((pipeline) => pipeline.set(lockKey, token, 'PX', this.leaseMs, 'NX').get(this.valueKey(pageKey)).get(this.epochKey))
    if (!results) return { kind: 'unavailable' }
    const [locked, stored, epoch] = results as [string | null, string | null, string | null]
    const page = this.usablePage(pageKey, stored, secret)
    if (page) {
      if (locked === 'OK') void this.settle(lockKey, token, '')
      return { kind: 'stored', page }
    }
    if (locked !== 'OK') return { kind: 'held' }
    this.emit('pageLocked', key)
    return { kind: 'locked', lock: this.pageLock(pageKey, lockKey, token, epoch ?? '0', secret) }
  }

  /**
   * Waits at most `ms` for the page another gateway renders: the page once
   * stored; undefined once its lock is gone without one (that render stored
   * nothing), past `ms`, or without Redis.
   */
  async waitForPage(key: string, ms: number): Promise<SharedPage | undefined> {
    const secret = this.options.pages?.secret
    if (secret === undefined) return undefined
    this.emit('pageWaiting', key)
    const { page, outcome } = await this.pollForPage(`page:${key}`, Date.now() + ms, secret)
    this.emit('pageWaited', key, outcome)
    return page
  }

  private async pollForPage(pageKey: string, deadline: number, secret: string): Promise<{ page?: SharedPage; outcome: 'stored' | 'released' | 'timeout' | 'unavailable' }> {
    while (Date.now() < deadline) {
      if (!this.usable()) return { outcome: 'unavailable' }
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())))
      const results = await this.run((pipeline) => pipeline.get(this.valueKey(pageKey)).get(this.lockKey(pageKey)))
      if (!results) return { outcome: 'unavailable' }
      const [stored, lock] = results as [string | null, string | null]
      const page = this.usablePage(pageKey, stored, secret)
      if (page) return { page, outcome: 'stored' }
      if (lock === null) return { outcome: 'released' }
    }
    return { outcome: 'timeout' }
  }

  private pageLock(pageKey: string, lockKey: string, token: string, epoch: string, secret: string): PageLock {
    const stopRenewing = this.renewWhileLoading(pageKey, lockKey, token)
    let done = false
    return {
      store: (page) => {
        if (done) return
        done = true
        stopRenewing()
        const tagKeys = page.tags.map((tag) => this.tagKey(tag))
        const lifetimeMs = this.options.pages?.lifetimeMs ?? 0
        this.command.storeEntry(3 + tagKeys.length, this.valueKey(pageKey), lockKey, this.epochKey, ...tagKeys, epoch, encodePage(page, secret), lifetimeMs, pageKey, token).then(
          () => this.succeeded(),
          (error: Error) => this.failed(error),
        )
      },
      release: () => {
        if (done) return
        done = true
        stopRenewing()
        void this.settle(lockKey, token, '')
      },
    }
  }

  /** The page a key holds in Redis if it is one a gateway with this secret stored; a refused one is dropped and logged. */
  private usablePage(pageKey: string, stored: string | null, secret: string): SharedPage | undefined {
    if (stored === null) return undefined
    const decoded = decodePage(stored, secret)
    if (decoded.page) return decoded.page
    this.refused(pageKey, stored, decoded.fault)
    return undefined
  }

  /**
   * Drops entries from Redis (all, or those of the tags) and tells every
   * gateway; 'pending' when Redis could not be reached: the purge is sent
   * again as soon as it can be.
   */
  async purge(tags: readonly string[] | undefined, soft = false): Promise<SharedPurge> {
    this.addPending(tags, soft)
    const dropped = await this.flushPending()
    return dropped === undefined ? { fanOut: 'pending' } : { fanOut: 'ok', dropped }
  }

  /**
   * New connections now: this machine's addresses changed (a network cut and connected again), so the ones open
   * may be bound to an address that is gone and lead nowhere without ever failing. Until they are up, the gateway
   * serves from memory and the CMS, as in any outage.
   */
  reconnect(): void {
    this.command.disconnect(true)
    this.subscriber.disconnect(true)
  }

  async close(): Promise<void> {
    clearInterval(this.retryTimer)
    this.command.disconnect()
    this.subscriber.disconnect()
  }

  private async loadAsHolder(key: string, token: string, epoch: string, load: () => Promise<LoadedEntry>): Promise<{ entry: LoadedEntry; fromShared: boolean }> {
    const lockKey = this.lockKey(key)
    const stopRenewing = this.renewWhileLoading(key, lockKey, token)
    let entry: LoadedEntry
    try {
      entry = await load()
    } catch (error) {
      stopRenewing()
      // Only a coded upstream error's code and message: another gateway's caller must not read this one's insides.
      await this.settle(lockKey, token, `E${JSON.stringify(describeUpstreamError(error) ?? {})}`)
      throw error
    }
    stopRenewing()
    if (!entry.storable) {
      await this.settle(lockKey, token, `A${encode(entry)}`)
      return { entry, fromShared: false }
    }
    try {
      const tagKeys = entry.tags.map((tag) => this.tagKey(tag))
      await this.command.storeEntry(3 + tagKeys.length, this.valueKey(key), lockKey, this.epochKey, ...tagKeys, epoch, encode(entry), this.options.entryLifetimeMs, key, token)
      this.succeeded()
    } catch (error) {
      this.failed(error as Error)
    }
    return { entry, fromShared: false }
  }

  /** Extends the lease of a lock this gateway holds every RENEW_MS until stopped, the lock is lost, or lockMs is over. */
  private renewWhileLoading(key: string, lockKey: string, token: string): () => void {
    const until = Date.now() + this.options.lockMs
    let renewing = false
    const stop = (): void => clearInterval(timer)
    const timer = setInterval(() => {
      if (Date.now() + RENEW_MS >= until) return stop()
      if (renewing || !this.usable()) return
      renewing = true
      this.command
        .renewLock(lockKey, token, Math.min(this.leaseMs, until - Date.now()))
        .then(
          (kept) => {
            this.succeeded()
            if (kept === 1) this.emit('renewed', key)
            else stop()
          },
          (error: Error) => this.failed(error),
        )
        .finally(() => {
          renewing = false
        })
    }, RENEW_MS)
    timer.unref()
    return stop
  }

  private get leaseMs(): number {
    return Math.min(LEASE_MS, this.options.lockMs)
  }

  /** The entry a key holds in Redis if it passes the checks; else undefined, and a refused one is dropped and logged. */
  private usableEntry(key: string, stored: string | null, accepts: (answer: UpstreamAnswer) => boolean): SharedEntry | undefined {
    if (stored === null) return undefined
    const decoded = decodeEntry(stored, accepts)
    if (decoded.entry) return decoded.entry
    this.refused(key, stored, decoded.fault)
    return undefined
  }

  private refused(key: string, stored: string, reason: string): void {
    this.emit('refused', key, reason)
    this.command.dropEntry(this.valueKey(key), stored).then(
      () => this.succeeded(),
      (error: Error) => this.failed(error),
    )
    this.refusalsSinceLog++
    const now = Date.now()
    if (now - this.lastRefusalLogAt < LOG_INTERVAL_MS) return
    this.options.log.warn({ key, reason, refused: this.refusalsSinceLog }, 'refused an entry from redis; dropped it and asked the CMS')
    this.lastRefusalLogAt = now
    this.refusalsSinceLog = 0
  }

  private async settle(lockKey: string, token: string, outcome: string): Promise<void> {
    try {
      await this.command.settleLock(lockKey, token, outcome, OUTCOME_MS)
      this.succeeded()
    } catch (error) {
      this.failed(error as Error)
    }
  }

  private errorFrom(marker: string): Error {
    try {
      return errorFromDescription(JSON.parse(marker))
    } catch {
      // a marker from another version: a failure that says nothing more
      return errorFromDescription(undefined)
    }
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
    if (!this.usable()) return undefined
    this.pending = undefined
    try {
      const message = `{"o":${JSON.stringify(this.instance)},"s":${pending.soft},"t":${pending.all ? 'null' : JSON.stringify([...pending.tags])},"e":`
      let dropped: number
      if (pending.all) dropped = await this.purgeEverything(message)
      else {
        const tagKeys = [...pending.tags].map((tag) => this.tagKey(tag))
        dropped = await this.command.purgeTags(1 + tagKeys.length, this.epochKey, ...tagKeys, this.valueKey(''), this.channel, message)
      }
      this.succeeded()
      return dropped
    } catch (error) {
      this.failed(error as Error)
      if (pending.all) this.addPending(undefined, pending.soft)
      else this.addPending([...pending.tags], pending.soft)
      return undefined
    }
  }

  /** The epoch goes up first, so that no flight begun before the purge stores its answer after it. The entries dropped. */
  private async purgeEverything(message: string): Promise<number> {
    const epoch = await this.command.incr(this.epochKey)
    let dropped = 0
    for (const pattern of [this.valueKey('*'), this.tagKey('*')]) {
      let cursor = '0'
      for (let round = 0; round < MAX_SCAN_ROUNDS; round++) {
        const [next, keys] = await this.command.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_BATCH)
        if (keys.length > 0) {
          const unlinked = await this.command.unlink(...keys)
          if (pattern === this.valueKey('*')) dropped += unlinked
        }
        cursor = next
        if (cursor === '0') break
      }
    }
    await this.command.publish(this.channel, `${message}${epoch}}`)
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
    let stored: string | null | undefined
    try {
      // The two connections come back independently: the epoch is read once commands can be sent.
      if (this.command.status !== 'ready') await once(this.command, 'ready', { signal: AbortSignal.timeout(CATCH_UP_WAIT_MS) })
      stored = await this.command.get(this.epochKey)
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
    this.emit('caughtUp', missed ? 'emptied' : 'kept')
  }

  private purgedElsewhere(tags: readonly string[] | undefined, soft = false): void {
    this.options.onPurge(tags, soft)
    this.emit('purge', tags)
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
    this.emit(up ? 'up' : 'down')
  }

  private lookedUp(result: 'hit' | 'miss' | 'error'): void {
    this.options.onLookup?.(result)
    this.emit('lookup', result)
  }

  private usable(): boolean {
    return this.command.status === 'ready' && Date.now() >= this.pausedUntil
  }

  private succeeded(): void {
    this.failuresInRow = 0
  }

  private failed(error: Error): void {
    this.options.onCommandError?.()
    this.emit('failure', error)
    this.failuresSinceLog++
    if (++this.failuresInRow >= FAILURES_BEFORE_PAUSE) {
      this.pausedUntil = Date.now() + PAUSE_MS
      this.failuresInRow = 0
      // Timeouts in a row on a connection ioredis still calls ready: perhaps a socket that leads nowhere (this
      // gateway cut from its network and given a new address, a Redis gone without a reset), which would stay
      // "ready" for ever. New connections find out: a Redis that is only slow answers them as it did these.
      if (error.message === 'Command timed out' && this.command.status === 'ready') {
        this.command.disconnect(true)
        this.subscriber.disconnect(true)
      }
    }
    this.logOutage(error)
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

  private valueKey(key: string): string {
    return `${this.options.keyPrefix}q:${key}`
  }

  private lockKey(key: string): string {
    return `${this.options.keyPrefix}l:${key}`
  }

  private tagKey(tag: string): string {
    return `${this.options.keyPrefix}t:${tag}`
  }
}
