import t, { type Test } from 'tap'
import { request } from 'undici'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { ContentStore } from '../../gateway/embedded-cms/content-store.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { purge as sendPurge } from '../helpers/http.ts'
import { PAIR_PURGE_SECRET, startSharedPair, within } from '../helpers/redis.ts'
import { until } from '../helpers/until.ts'

/**
 * A page lives a second in Redis, the CMS's answers a minute: the tag set that names both must outlive the page,
 * or a purge after the page expired finds nothing in Redis and the gateways read the old answer back.
 */
const pair = await startSharedPair({ PAGE_CACHE_TTL_MS: '1000', CACHE_TTL_MS: '60000' })
t.teardown(() => pair.close())

const ABOUT = '/over-ons'
/** The about page's entry: a single that was found is tagged with its entry, which the webhook's save purges. */
const ABOUT_ID = '102'
const TAG = `entry:${ABOUT_ID}`
const pageKey = `${DEFAULT_SITE_HANDLE}:q:page:${ABOUT}`

/** An editor saves the about page with a new title. */
function retitle(title: string): void {
  const files = ContentStore.readDirectory(loadGatewayConfig({}).contentDir)
  for (const file of files) for (const entry of file.entries ?? []) if (entry.id === ABOUT_ID) entry.title = title
  pair.upstream.content.replace(files)
}

async function purge(hard = false): Promise<Record<string, unknown>> {
  const answer = await sendPurge(pair.a.url, { tags: [TAG], hard }, { secret: PAIR_PURGE_SECRET })
  t.equal(answer.status, 200)
  return answer.json
}

/**
 * The title a visitor gets once the purge has taken effect: a purge is soft (the stored page answers STALE while
 * one render refreshes it, and a page of a second's lifetime is stale again a second later), so the page is asked
 * for until it shows the expected title or 20 s have passed; a purge that was lost never shows it.
 */
const titleOn = async (base: string, expected: string): Promise<string> => {
  let title = ''
  await within(20_000, async () => {
    const html = await (await request(`${base}${ABOUT}`)).body.text()
    title = /<h1[^>]*>([^<]*)</.exec(html)?.[1] ?? ''
    return title === expected
  }, 20)
  return title
}

async function servedEverywhere(t: Test, title: string): Promise<void> {
  for (const system of [pair.a, pair.b]) t.equal(await titleOn(system.url, title), title, `${system === pair.a ? 'a' : 'b'} serves "${title}"`)
}

t.test('a purge after the pages expired in Redis still drops the answers they were built from', async (t) => {
  await servedEverywhere(t, 'Over Havenborg')
  retitle('Over Havenborg, eerste wijziging')
  // Hard: the next visitor's render stores the page in Redis, naming the tag set with the page's short lifetime.
  const first = await purge(true)
  t.equal(first.shared, 'ok')
  await servedEverywhere(t, 'Over Havenborg, eerste wijziging')
  await until(
    () => pair.a.gateway.pageCache.get(ABOUT) !== undefined && pair.b.gateway.pageCache.get(ABOUT) !== undefined,
    () => 'both gateways store the changed page',
  )
  // Past the page's lifetime: Redis dropped the page (the answers it was built from stay a minute).
  t.ok(await within(20_000, async () => (await pair.redis.client.exists(pageKey)) === 0, 20), 'the page expired in redis')
  t.equal(await pair.redis.client.exists(`${DEFAULT_SITE_HANDLE}:t:${TAG}`), 1, 'the tag set outlives the page that named it last')
  retitle('Over Havenborg, tweede wijziging')
  const second = await purge()
  t.equal(second.shared, 'ok')
  t.ok(Number(second.sharedDropped) > 0, 'the purge dropped the answers in redis')
  t.equal(second.sharedMissed, false, 'and does not report a miss')
  await servedEverywhere(t, 'Over Havenborg, tweede wijziging')
})

t.test('a purge that finds nothing in Redis while memory held entries says so, in its answer and a metric', async (t) => {
  await servedEverywhere(t, 'Over Havenborg, tweede wijziging')
  // Tag sets lost (an operator's FLUSHDB of them, an eviction): the purge can find nothing.
  const tagKeys = await pair.redis.client.keys(`${DEFAULT_SITE_HANDLE}:t:*`)
  if (tagKeys.length > 0) await pair.redis.client.del(...tagKeys)
  const answer = await purge()
  t.equal(answer.sharedDropped, 0)
  t.equal(answer.sharedMissed, true)
  const metrics = await (await request(`${pair.a.internalUrl}/metrics`)).body.text()
  t.match(metrics, /^purges_missed_in_redis_total\{[^}]*\} 1$/m)
})
