// The slowest page in the 5 s after a Redis pause (issue 31, item 5), with two
// gateways (each with its renderer, in this process) sharing one Redis and one
// CMS stand-in: pages are requested from both without pause, Redis is stopped
// with SIGSTOP for PAUSE_MS and resumed with SIGCONT. Short cache lifetimes keep
// the gateways missing keys, so they take Redis locks all along.
//   node --import tsx scripts/redis-pause.ts   (PAUSE_MS=20000 AFTER_MS=5000 by default)
// Prints JSON: the slowest page begun in the AFTER_MS after the resume, and the
// same for the seconds before the pause, for comparison.
import { request } from 'undici'
import { startSharedPair } from '../test/helpers/redis.ts'

const PAUSE_MS = Number(process.env.PAUSE_MS ?? 20_000)
const AFTER_MS = Number(process.env.AFTER_MS ?? 5000)
const BEFORE_MS = 5000
const WORKERS = 4
const PATHS = ['/', '/over-ons', '/werken-bij', '/kantoren', '/actueel', '/onze-verzekeringen', '/services', '/jobs/allround-schadebehandelaar']

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const pair = await startSharedPair({
  LOG_LEVEL: 'error',
  REDIS_COMMAND_TIMEOUT_MS: '100',
  CACHE_TTL_MS: '1000',
  CACHE_SWR_MS: '0',
  PAGE_CACHE: 'false',
})
const systems = [pair.a, pair.b]
const samples: { startedAt: number; ms: number; status: number; path: string }[] = []
let stopped = false
const worker = async (offset: number) => {
  for (let i = offset; !stopped; i += WORKERS) {
    const system = systems[i % 2] ?? pair.a
    const path = PATHS[Math.floor(i / 2) % PATHS.length] ?? '/'
    const startedAt = performance.now()
    const status = await request(`${system.url}${path}`).then(
      async (response) => {
        await response.body.dump()
        return response.statusCode
      },
      () => 0,
    )
    samples.push({ startedAt, ms: performance.now() - startedAt, status, path })
  }
}
const workers = Promise.all(Array.from({ length: WORKERS }, (_, offset) => worker(offset)))

await sleep(BEFORE_MS)
const pausedAt = performance.now()
process.kill(pair.redis.pid(), 'SIGSTOP')
await sleep(PAUSE_MS)
process.kill(pair.redis.pid(), 'SIGCONT')
const resumedAt = performance.now()
await sleep(AFTER_MS)
stopped = true
await workers

const summary = (from: number, to: number) => {
  const inWindow = samples.filter((sample) => sample.startedAt >= from && sample.startedAt < to)
  const slowest = inWindow.reduce((worst, sample) => (sample.ms > worst.ms ? sample : worst), { ms: 0, path: '', status: 0, startedAt: 0 })
  const statuses: Record<number, number> = {}
  for (const sample of inWindow) statuses[sample.status] = (statuses[sample.status] ?? 0) + 1
  const sorted = inWindow.map((sample) => sample.ms).sort((a, b) => a - b)
  return {
    pages: inWindow.length,
    statuses,
    slowestMs: Math.round(slowest.ms),
    slowestPath: slowest.path,
    p99Ms: Math.round(sorted[Math.floor(sorted.length * 0.99)] ?? 0),
    over1s: inWindow.filter((sample) => sample.ms > 1000).length,
  }
}
console.log(
  JSON.stringify(
    {
      pauseMs: PAUSE_MS,
      beforePause: summary(pausedAt - BEFORE_MS, pausedAt),
      afterResume: summary(resumedAt, resumedAt + AFTER_MS),
    },
    null,
    2,
  ),
)
await pair.close()
