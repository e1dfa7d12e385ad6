// Where throughput goes when Redis is killed (kill -9) under load, without Docker: two gateways (with their
// renderers) in this process sharing one redis-server, 16 requests at a time over the site's pages, Redis killed
// with SIGKILL after REF_S seconds and started again (empty, as Swarm restarts it) DOWN_MS later.
// Prints the requests and the slowest request of each 250 ms, and what the shared tier said meanwhile.
//   node --import tsx scripts/bench-redis-kill.ts            (REF_S=8 DOWN_MS=1000 AFTER_S=8 CONCURRENCY=16)
// MODE=vanish: Redis stopped (SIGSTOP) for DOWN_MS before the kill, as a container killed on an overlay network
// looks to its peers (no reset: commands and connects wait for their timeouts), not refused as on loopback.
// PAGE_TTL_MS (default the gateway's) makes pages expire during the run, so requests reach Redis; REDIS_COMMAND_TIMEOUT_MS
// is the stack's 100 ms unless given.
// Everything shares this process's core: read the buckets against the seconds before the kill, not as absolutes.
import { Pool } from 'undici'
import { startSharedPair, tierOf } from '../test/helpers/redis.ts'

const REF_S = Number(process.env.REF_S ?? 8)
const DOWN_MS = Number(process.env.DOWN_MS ?? 1000)
const AFTER_S = Number(process.env.AFTER_S ?? 8)
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16)
const BUCKET_MS = 250
const MODE = process.env.MODE ?? 'kill'
// The stack's command timeout (the default, 100 ms), not the 2 s the tests give a loaded machine.
const pair = await startSharedPair({
  REDIS_COMMAND_TIMEOUT_MS: process.env.REDIS_COMMAND_TIMEOUT_MS ?? '100',
  ...(process.env.PAGE_TTL_MS ? { PAGE_CACHE_TTL_MS: process.env.PAGE_TTL_MS } : {}),
})
// The site's pages from its sitemap (an index: the pages are in its children), as visitors and crawlers ask for them.
const locs = async (url: string): Promise<string[]> => [...(await (await fetch(url)).text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => new URL(match[1] ?? '/').pathname)
const PATHS: string[] = []
for (const child of await locs(`${pair.a.url}/sitemap.xml`)) PATHS.push(...(await locs(`${pair.a.url}${child}`)))
PATHS.splice(20)
const systems = [pair.a, pair.b]
const pools = systems.map((system) => new Pool(system.url, { connections: CONCURRENCY }))
const started = performance.now()
const since = () => Math.round(performance.now() - started)
const events: string[] = []
for (const [index, system] of systems.entries()) {
  const tier = tierOf(system)
  const name = index === 0 ? 'a' : 'b'
  tier.on('down', () => events.push(`${since()} ms ${name} down`))
  tier.on('up', () => events.push(`${since()} ms ${name} up`))
  tier.on('caughtUp', (memory) => events.push(`${since()} ms ${name} caught up, memory ${memory}`))
  let failures = 0
  tier.on('failure', (error) => {
    if (failures++ < 3) events.push(`${since()} ms ${name} failure: ${error.message}`)
  })
}

const buckets = new Map<number, { requests: number; slowest: number; failed: number; cache: Record<string, number> }>()
let running = true
let sent = 0
const worker = async (): Promise<void> => {
  while (running) {
    const n = sent++
    const pool = pools[n % pools.length]!
    const path = PATHS[Math.floor(n / 2) % PATHS.length]!
    const begun = performance.now()
    let failed = 0
    let cache = 'none'
    try {
      const response = await pool.request({ path, method: 'GET' })
      await response.body.dump()
      cache = String(response.headers['x-cache'] ?? 'none')
      if (response.statusCode !== 200) failed = 1
    } catch {
      failed = 1
    }
    const done = performance.now()
    const key = Math.floor((done - started) / BUCKET_MS)
    const bucket = buckets.get(key) ?? { requests: 0, slowest: 0, failed: 0, cache: {} }
    bucket.requests++
    bucket.failed += failed
    bucket.slowest = Math.max(bucket.slowest, done - begun)
    bucket.cache[cache] = (bucket.cache[cache] ?? 0) + 1
    buckets.set(key, bucket)
  }
}
const workers = Array.from({ length: CONCURRENCY }, worker)
await new Promise((resolve) => setTimeout(resolve, REF_S * 1000))
if (MODE === 'vanish') {
  events.push(`${since()} ms redis SIGSTOP`)
  process.kill(pair.redis.pid(), 'SIGSTOP')
  await new Promise((resolve) => setTimeout(resolve, DOWN_MS))
  events.push(`${since()} ms redis SIGKILL`)
  await pair.redis.stop('SIGKILL')
} else {
  events.push(`${since()} ms redis SIGKILL`)
  await pair.redis.stop('SIGKILL')
  await new Promise((resolve) => setTimeout(resolve, DOWN_MS))
}
await pair.redis.start()
events.push(`${since()} ms redis started again (empty)`)
await new Promise((resolve) => setTimeout(resolve, AFTER_S * 1000))
running = false
await Promise.all(workers)

const keys = [...buckets.keys()].sort((a, b) => a - b)
const reference = keys.filter((key) => key >= (REF_S * 1000) / BUCKET_MS / 2 && (key + 1) * BUCKET_MS <= REF_S * 1000).map((key) => buckets.get(key)!.requests)
const refMean = reference.reduce((a, b) => a + b, 0) / Math.max(1, reference.length)
console.log(`reference (the second half of the seconds before the kill): ${refMean.toFixed(1)} requests per ${BUCKET_MS} ms`)
for (const key of keys) {
  const bucket = buckets.get(key)!
  console.log(
    `${String(key * BUCKET_MS).padStart(6)} ms  ${String(bucket.requests).padStart(4)} requests (${(bucket.requests / refMean).toFixed(2)} of the reference)  slowest ${Math.round(bucket.slowest)} ms  failed ${bucket.failed}  ${JSON.stringify(bucket.cache)}`,
  )
}
console.log(events.join('\n'))
await Promise.all(pools.map((pool) => pool.close()))
await pair.close()
process.exit(0)
