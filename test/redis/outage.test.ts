import t from 'tap'
import { request } from 'undici'
import { startSharedPair, within } from '../helpers/redis.ts'

// Short freshness, so the load keeps asking Redis (and the CMS) instead of living off memory.
const pair = await startSharedPair({ CACHE_TTL_MS: '100', CACHE_SWR_MS: '0' })
t.teardown(() => pair.close())

const PATHS = ['/werken-bij/_payload.json', '/kantoren/_payload.json', '/actueel/_payload.json', '/over-ons/_payload.json', '/onze-verzekeringen/_payload.json']
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const metric = async (base: string, pattern: RegExp): Promise<number> => {
  const text = await (await request(`${base}/metrics`)).body.text()
  return Number(pattern.exec(text)?.[1] ?? 0)
}
const readyz = async (base: string) => {
  const response = await request(`${base}/readyz`)
  return { status: response.statusCode, json: (await response.body.json()) as { checks: Record<string, string> } }
}
const SHARED_HITS = /shared_cache_lookups_total\{result="hit"[^}]*\} (\d+)/
const SHARED_MISSES = /shared_cache_lookups_total\{result="miss"[^}]*\} (\d+)/
const answeredByRedis = async (base: string) => (await metric(base, SHARED_HITS)) + (await metric(base, SHARED_MISSES))
const REDIS_UP = /redis_up\{[^}]*\} (\d+)/

t.test('redis stopped in the middle of a load run and started again: no request fails, redis is used again', async (t) => {
  const statuses = new Map<number, number>()
  let done = false
  let sent = 0
  const worker = async (offset: number) => {
    for (let i = offset; !done && i < 20_000; i += 6) {
      const base = i % 2 === 0 ? pair.a.url : pair.b.url
      const response = await request(`${base}${PATHS[i % PATHS.length]}`)
      await response.body.dump()
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1)
      sent++
      await sleep(2)
    }
  }
  const load = Promise.all(Array.from({ length: 6 }, (_, offset) => worker(offset)))

  await sleep(300)
  await pair.redis.stop()
  await sleep(600)
  const down = await readyz(pair.a.internalUrl)
  t.equal(down.status, 200, 'still ready without redis')
  t.equal(down.json.checks.redis, 'unreachable', '/readyz reports redis')
  t.equal(await metric(pair.b.internalUrl, REDIS_UP), 0, 'redis_up 0')
  await pair.redis.start()
  const back = await within(5000, async () => (await metric(pair.a.internalUrl, REDIS_UP)) === 1 && (await metric(pair.b.internalUrl, REDIS_UP)) === 1, 50)
  t.ok(back !== undefined, 'both gateways reconnected')
  const answeredBefore = await answeredByRedis(pair.a.internalUrl)
  await sleep(500)
  done = true
  await load

  t.ok(sent > 100, `${sent} requests in the run`)
  t.same([...statuses.keys()], [200], 'every request answered 200')
  const answeredAfter = await answeredByRedis(pair.a.internalUrl)
  t.ok(answeredAfter > answeredBefore, `redis answers lookups again (${answeredBefore} -> ${answeredAfter})`)
  t.ok((await pair.redis.client.dbsize()) > 0, 'entries stored in the new redis')
  t.equal((await readyz(pair.b.internalUrl)).json.checks.redis, 'ok')
  for (const system of [pair.a, pair.b]) {
    const warnings = system.gatewayLogs.lines.filter((line) => line.msg === 'redis failing; serving from memory and the CMS')
    t.equal(warnings.length, 1, 'the outage is logged once per interval')
  }
})

t.test('a hanging redis (stopped, not dead) costs a timeout, not an error', async (t) => {
  await within(3000, async () => (await metric(pair.a.internalUrl, REDIS_UP)) === 1, 50)
  const pid = pair.redis.pid()
  process.kill(pid, 'SIGSTOP')
  try {
    await sleep(150)
    for (let i = 0; i < 20; i++) {
      const started = performance.now()
      const response = await request(`${pair.a.url}${PATHS[i % PATHS.length]}`)
      await response.body.dump()
      t.equal(response.statusCode, 200)
      t.ok(performance.now() - started < 1500, 'answered without waiting for redis')
      await sleep(30)
    }
  } finally {
    process.kill(pid, 'SIGCONT')
  }
})
