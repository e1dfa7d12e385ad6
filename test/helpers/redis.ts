import { type ChildProcess, execSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { Redis } from 'ioredis'
import pino from 'pino'
import { SharedTier, type SharedTierEvents } from '../../gateway/cache/shared-tier.ts'
import { type FaultUpstream, startFaultUpstream } from './fault-upstream.ts'
import { freePort, retryOnAddressInUse } from './ports.ts'
import { type System, startSystem } from './system.ts'
import { GIVE_UP_MS } from './until.ts'

const REDIS_SERVER = '/usr/bin/redis-server'

/** Debian's redis-server, installed when missing (as scripts/ensure-test-deps.mjs does before `npm test`). */
export function ensureRedisServer(): void {
  if (existsSync(REDIS_SERVER)) return
  const sudo = process.getuid?.() === 0 ? '' : 'sudo '
  execSync(`${sudo}apt-get update -qq && DEBIAN_FRONTEND=noninteractive ${sudo}apt-get install -y -qq --no-install-recommends redis-server`, { stdio: 'inherit' })
}

export interface RedisServer {
  url: string
  port: number
  /** A client for looking inside; closed with the server. */
  client: Redis
  /** Stops the server (SIGKILL by default: a crash) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>
  /** Starts it again on the same port, empty. */
  start(): Promise<void>
  /** The process id of the running server. */
  pid(): number
  close(): Promise<void>
}

/** A throwaway redis-server on a free loopback port, without persistence. */
export async function startRedisServer(): Promise<RedisServer> {
  ensureRedisServer()
  let port = 0
  let child: ChildProcess | undefined
  const launch = async (): Promise<void> => {
    const started = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child = started
    // Whatever happens to the test, its redis-server goes with it.
    const orphaned = (): void => {
      started.kill('SIGKILL')
    }
    process.once('exit', orphaned)
    started.once('exit', () => process.off('exit', orphaned))
    let output = ''
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000)
      started.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8')
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer)
          resolve()
        }
      })
      started.on('exit', (code) => {
        clearTimeout(timer)
        const error = new Error(`redis-server exited with ${code}: ${output}`)
        // redis-server cannot bind port 0 and say where: a port taken since it was picked means another port.
        reject(output.includes('Address already in use') ? Object.assign(error, { code: 'EADDRINUSE' }) : error)
      })
    })
    started.removeAllListeners('exit')
  }
  const stop = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()))
    running.kill(signal)
    await exited
  }
  await retryOnAddressInUse(async () => {
    port = await freePort()
    await launch()
  })
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 100 })
  client.on('error', () => undefined)
  await client.connect()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client,
    stop,
    start: launch,
    pid: () => child?.pid ?? -1,
    async close() {
      client.disconnect()
      await stop()
    },
  }
}

export interface SharedPair {
  redis: RedisServer
  upstream: FaultUpstream
  a: System
  b: System
  /** Calls the CMS got for one operation. */
  callsOf(operationName: string): number
  close(): Promise<void>
}

/** Two gateways (each with its renderer) sharing one Redis and one counting CMS, as behind a load balancer. */
export async function startSharedPair(env: Record<string, string> = {}): Promise<SharedPair> {
  const redis = await startRedisServer()
  const upstream = await startFaultUpstream()
  // A loaded machine can take longer than the default 100 ms for one Redis command; the gateway then goes on without
  // Redis by design, and a test of what Redis holds would see nothing stored. Tests of a slow Redis set their own.
  const shared = { CRAFT_API_URL: upstream.url, REDIS_URL: redis.url, PURGE_SECRET: PAIR_PURGE_SECRET, REDIS_COMMAND_TIMEOUT_MS: '2000', ...env }
  const a = await startSystem(shared)
  const b = await startSystem(shared)
  return {
    redis,
    upstream,
    a,
    b,
    callsOf: (operationName) => upstream.calls.filter((call) => call.operationName === operationName).length,
    async close() {
      await Promise.all([a.close(), b.close()])
      await upstream.close()
      await redis.close()
    },
  }
}

export const PAIR_PURGE_SECRET = 'pair-secret'

/** Polls until the check passes; how long it took, or undefined when `withinMs` ran out. */
export async function within(withinMs: number, check: () => boolean | Promise<boolean>, everyMs = 10): Promise<number | undefined> {
  const started = performance.now()
  while (performance.now() - started <= withinMs) {
    if (await check()) return performance.now() - started
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  return undefined
}


/** The shared tier of a gateway started with REDIS_URL. */
export function tierOf(system: System): SharedTier {
  const tier = system.gateway.sharedCache
  if (!tier) throw new Error('the gateway has no shared tier: REDIS_URL is not set')
  return tier
}

/** What `settles` resolves to; fails with `what` when it does not within the bound. */
export async function bounded<T>(settles: Promise<T>, what: string): Promise<T> {
  const giveUp = AbortSignal.timeout(GIVE_UP_MS)
  let fail = (): void => undefined
  const failed = new Promise<never>((_, reject) => {
    fail = () => reject(new Error(`never happened: ${what}`))
    giveUp.addEventListener('abort', fail, { once: true })
  })
  try {
    return await Promise.race([settles, failed])
  } finally {
    giveUp.removeEventListener('abort', fail)
  }
}

/** The next `name` event of a tier that `accept`s (listen before causing it). */
export function nextEvent<K extends keyof SharedTierEvents>(
  tier: SharedTier,
  name: K,
  what: string = name,
  accept: (...args: SharedTierEvents[K]) => boolean = () => true,
): Promise<SharedTierEvents[K]> {
  const emitter = tier as NodeJS.EventEmitter
  let listener = (..._args: unknown[]): void => undefined
  const seen = new Promise<SharedTierEvents[K]>((resolve) => {
    listener = (...args: unknown[]) => {
      if (accept(...(args as SharedTierEvents[K]))) resolve(args as SharedTierEvents[K])
    }
    emitter.on(name, listener)
  })
  return bounded(seen, what).finally(() => emitter.off(name, listener))
}

/** Resolves once the tier is up (or down): at once, or on the event that says so. */
export async function tierState(tier: SharedTier, state: 'up' | 'down', what: string = `redis ${state}`): Promise<void> {
  if (tier.up === (state === 'up')) return
  await nextEvent(tier, state, what)
}

/**
 * Two shared tiers on one Redis, as two gateways would have them, both up:
 * the one that takes a key's lock and the one that waits on it. Closed in the
 * test's teardown.
 */
export async function startTierPair(
  t: { teardown(fn: () => unknown): void },
  redis: RedisServer,
  options: { lockMs: number; keyPrefix: string },
): Promise<{ holder: SharedTier; waiter: SharedTier }> {
  const tier = (name: string): SharedTier => {
    const shared = new SharedTier({
      url: new URL(redis.url),
      commandTimeoutMs: 2000,
      entryLifetimeMs: 60_000,
      log: pino({ level: 'silent', name }),
      onPurge: () => undefined,
      ...options,
    })
    t.teardown(() => shared.close())
    return shared
  }
  const holder = tier('holder')
  const waiter = tier('waiter')
  await Promise.all([tierState(holder, 'up'), tierState(waiter, 'up')])
  return { holder, waiter }
}
