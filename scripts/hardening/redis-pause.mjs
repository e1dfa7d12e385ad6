// The slowest page after a Redis pause (issue 31, item 5): two gateways share
// Debian's redis-server and one renderer; answers and pages expire after a
// second (and are not served stale meanwhile), so misses keep happening. A
// steady client asks both gateways for the sitemap's pages; Redis is stopped
// (SIGSTOP) for 20 s and resumed, and the pages begun in the 5 s after that
// are compared with those before the pause.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { Agent, request } from 'undici'
import { freePort, log, quantile, sitemapPaths, sleep, startProcess, startService, tenths, waitFor } from './report-kit.mjs'

const REDIS_SERVER = '/usr/bin/redis-server'
const BEFORE_MS = 5000
const PAUSE_MS = 20_000
const AFTER_MS = 5000
const CLIENTS_PER_GATEWAY = 2

export async function startRedis() {
  if (!existsSync(REDIS_SERVER)) throw new Error(`${REDIS_SERVER} is missing (apt-get install redis-server)`)
  const port = await freePort()
  const redis = startProcess(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {})
  for (let i = 0; i < 100 && !redis.output().includes('Ready to accept connections'); i++) await sleep(100)
  if (!redis.output().includes('Ready to accept connections')) throw new Error(`redis-server did not start: ${redis.output()}`)
  return { redis, url: `redis://127.0.0.1:${port}` }
}

const summary = (samples) => {
  const latencies = samples.map((sample) => sample.ms)
  return { pages: latencies.length, p99Ms: tenths(quantile(latencies, 0.99)), slowestMs: tenths(latencies.length ? Math.max(...latencies) : null), errors: samples.filter((sample) => sample.status !== 200).length }
}

export async function measureRedisPause() {
  const { redis, url: redisUrl } = await startRedis()
  const [rendererPort, ...ports] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()])
  const secret = randomBytes(24).toString('base64url')
  const common = { LOG_LEVEL: 'warn', RENDER_SECRET: secret }
  const gateways = [0, 1].map((n) => ({
    url: `http://127.0.0.1:${ports[n * 2]}`,
    internalUrl: `http://127.0.0.1:${ports[n * 2 + 1]}`,
    service: startService('gateway.js', {
      ...common,
      PORT: String(ports[n * 2]),
      HOST: '127.0.0.1',
      INTERNAL_PORT: String(ports[n * 2 + 1]),
      RENDERER_URL: `http://127.0.0.1:${rendererPort}`,
      REDIS_URL: redisUrl,
      CACHE_TTL_MS: '1000',
      CACHE_SWR_MS: '0',
      PAGE_CACHE_TTL_MS: '1000',
    }),
  }))
  const renderer = startService('renderer.js', { ...common, RENDERER_PORT: String(rendererPort), GATEWAY_URL: gateways[0].url })
  const agent = new Agent({ connections: CLIENTS_PER_GATEWAY * 2, headersTimeout: 15_000, bodyTimeout: 15_000 })
  try {
    for (const gateway of gateways) await waitFor(`${gateway.internalUrl}/readyz`, { service: gateway.service })
    const paths = await sitemapPaths(gateways[0].url)
    const samples = []
    const began = performance.now()
    let resumedAt = Infinity
    let pausedAt = Infinity
    let stop = false
    const client = async (gateway, offset) => {
      for (let i = offset; !stop; i += CLIENTS_PER_GATEWAY) {
        const start = performance.now()
        let status = 'error'
        try {
          const response = await request(`${gateway.url}${paths[i % paths.length]}`, { dispatcher: agent })
          await response.body.dump()
          status = response.statusCode
        } catch {}
        samples.push({ at: start, ms: performance.now() - start, status })
      }
    }
    const clients = gateways.flatMap((gateway) => Array.from({ length: CLIENTS_PER_GATEWAY }, (_, n) => client(gateway, n)))
    await sleep(BEFORE_MS)
    pausedAt = performance.now()
    process.kill(redis.child.pid, 'SIGSTOP')
    await sleep(PAUSE_MS)
    process.kill(redis.child.pid, 'SIGCONT')
    resumedAt = performance.now()
    await sleep(AFTER_MS)
    stop = true
    await Promise.all(clients)
    const result = {
      pauseSeconds: PAUSE_MS / 1000,
      gateways: gateways.length,
      before: summary(samples.filter((sample) => sample.at >= began + 1000 && sample.at < pausedAt)),
      duringPause: summary(samples.filter((sample) => sample.at >= pausedAt && sample.at < resumedAt)),
      after5s: summary(samples.filter((sample) => sample.at >= resumedAt && sample.at < resumedAt + AFTER_MS)),
    }
    log('redis pause:', result)
    return result
  } finally {
    await agent.close()
    await Promise.all([...gateways.map((gateway) => gateway.service.stop()), renderer.stop(), redis.stop()])
  }
}

export const redisPauseRows = (result) => [
  [
    `slowest page in the ${AFTER_MS / 1000} s after a ${result.pauseSeconds} s Redis pause`,
    `${result.after5s.slowestMs} ms, p99 ${result.after5s.p99Ms} ms (before the pause: slowest ${result.before.slowestMs} ms, p99 ${result.before.p99Ms} ms)`,
  ],
]
