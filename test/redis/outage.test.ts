import t from 'tap'
import { request } from 'undici'
import { bounded, nextEvent, startSharedPair, tierOf, tierState } from '../helpers/redis.ts'
import type { System } from '../helpers/system.ts'

// Short freshness, so the load keeps asking Redis (and the CMS) instead of living off memory.
const pair = await startSharedPair({ CACHE_TTL_MS: '100', CACHE_SWR_MS: '0' })
t.teardown(() => pair.close())
const tiers = [tierOf(pair.a), tierOf(pair.b)]

const PATHS = ['/werken-bij/_payload.json', '/kantoren/_payload.json', '/actueel/_payload.json', '/over-ons/_payload.json', '/onze-verzekeringen/_payload.json']
const metric = async (base: string, pattern: RegExp): Promise<number> => {
  const text = await (await request(`${base}/metrics`)).body.text()
  return Number(pattern.exec(text)?.[1] ?? 0)
}
const readyz = async (base: string) => {
  const response = await request(`${base}/readyz`)
  return { status: response.statusCode, json: (await response.body.json()) as { checks: Record<string, string> } }
}
const REDIS_UP = /redis_up\{[^}]*\} (\d+)/
const lookupIn = (results: string[]) => (result: string) => results.includes(result)

/** Six clients asking the gateways for pages' data, one request after another, until stopped. */
function startLoad(systems: System[]) {
  const statuses = new Map<number, number>()
  let answered = 0
  let done = false
  const counts: { at: number; reached: () => void }[] = []
  const worker = async (offset: number) => {
    for (let i = offset; !done; i += 6) {
      const system = systems[i % systems.length] as System
      // A request that fails outright counts as status 0.
      const status = await request(`${system.url}${PATHS[i % PATHS.length]}`).then(
        async (response) => {
          await response.body.dump()
          return response.statusCode
        },
        () => 0,
      )
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
      answered++
      for (const count of counts) if (answered >= count.at) count.reached()
    }
  }
  const workers = Promise.all(Array.from({ length: 6 }, (_, offset) => worker(offset)))
  return {
    statuses,
    answered: () => answered,
    /** Resolves once `n` more requests than now have been answered. */
    answers(n: number, what: string): Promise<void> {
      const reached = new Promise<void>((resolve) => counts.push({ at: answered + n, reached: resolve }))
      return bounded(reached, `${n} more answers ${what}`)
    },
    async stop(): Promise<void> {
      done = true
      await workers
    },
  }
}

t.test('redis stopped in the middle of a load run and started again: no request fails, redis is used again', async (t) => {
  await Promise.all(tiers.map((tier) => tierState(tier, 'up')))
  const load = startLoad([pair.a, pair.b])
  t.teardown(() => load.stop())
  await Promise.all(tiers.map((tier) => nextEvent(tier, 'lookup', 'a lookup answered by redis', lookupIn(['hit', 'miss']))))
  await load.answers(30, 'with redis up')

  const down = Promise.all(tiers.map((tier) => tierState(tier, 'down', 'both gateways see redis go')))
  await pair.redis.stop()
  await down
  await Promise.all(tiers.map((tier) => nextEvent(tier, 'lookup', 'a lookup that went on without redis', lookupIn(['error']))))
  await load.answers(30, 'without redis')
  const readiness = await readyz(pair.a.internalUrl)
  t.equal(readiness.status, 200, 'still ready without redis')
  t.equal(readiness.json.checks.redis, 'unreachable', '/readyz reports redis')
  t.equal(await metric(pair.b.internalUrl, REDIS_UP), 0, 'redis_up 0')

  const back = Promise.all(tiers.map((tier) => tierState(tier, 'up', 'both gateways reconnect')))
  await pair.redis.start()
  await back
  // The new redis started empty: a hit is an entry stored in it since.
  await Promise.all(tiers.map((tier) => nextEvent(tier, 'lookup', 'a lookup answered by the new redis', lookupIn(['hit']))))
  await load.answers(30, 'with redis back')
  await load.stop()

  t.same([...load.statuses.keys()], [200], `every one of ${load.answered()} requests answered 200`)
  t.ok((await pair.redis.client.dbsize()) > 0, 'entries stored in the new redis')
  t.equal((await readyz(pair.b.internalUrl)).json.checks.redis, 'ok')
  for (const system of [pair.a, pair.b]) {
    t.equal(await metric(system.internalUrl, REDIS_UP), 1, 'redis_up 1')
    const said = (message: string) => system.gatewayLogs.lines.filter((line) => line.msg === message).length
    t.equal(said('redis failing; serving from memory and the CMS'), 1, 'the outage is logged once per interval')
    t.equal(said('redis reachable again; the shared cache tier is back in use'), 1, 'and its end')
  }
})

t.test('a hanging redis (stopped, not dead) costs a timeout, not an error', async (t) => {
  const tier = tierOf(pair.a)
  await tierState(tier, 'up')
  const pid = pair.redis.pid()
  const timedOut = nextEvent(tier, 'failure', 'a redis command timed out', (error) => error.message === 'Command timed out')
  process.kill(pid, 'SIGSTOP')
  let load: ReturnType<typeof startLoad> | undefined
  try {
    // Nothing in memory to fall back on: the gateway waits for Redis's timeout, then asks the CMS.
    const unseen = await request(`${pair.a.url}/jobs/allround-schadebehandelaar/_payload.json`)
    t.equal(unseen.statusCode, 200, 'a page no cache holds is answered')
    t.equal(unseen.headers['x-cache'], 'MISS', 'by the CMS')
    await unseen.body.dump()
    await timedOut
    load = startLoad([pair.a])
    await load.answers(30, 'while redis hangs')
    // Timeouts in a row replace the connections (a hung Redis looks like a socket that leads nowhere): while the
    // new ones wait for Redis, requests skip it without a timeout each.
  } finally {
    process.kill(pid, 'SIGCONT')
    await load?.stop()
  }
  t.same([...(load?.statuses.keys() ?? [])], [200], `every one of ${load?.answered()} requests answered 200`)
  await tierState(tier, 'up', 'redis in use again once it resumes')
})
