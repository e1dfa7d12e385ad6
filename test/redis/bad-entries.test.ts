import t from 'tap'
import { request } from 'undici'
import { queryCacheKey } from '../../shared/cache-key.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { startFaultUpstream } from '../helpers/fault-upstream.ts'
import { nextEvent, startRedisServer, tierOf, tierState } from '../helpers/redis.ts'
import { startSystem } from '../helpers/system.ts'

/**
 * Issue 31, item 6: an entry read from Redis passes the checks a CMS answer
 * passes. Each bad entry is planted by hand in the key of the site's settings
 * (every page needs them: header and footer); the gateway must refuse it, ask
 * the CMS, serve and store a whole page, and put a good entry in its place.
 */
const redis = await startRedisServer()
const upstream = await startFaultUpstream()
const system = await startSystem({ CRAFT_API_URL: upstream.url, REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '2000' })
t.teardown(async () => {
  await system.close()
  await upstream.close()
  await redis.close()
})
const tier = tierOf(system)
await tierState(tier, 'up')

const key = queryCacheKey(createOperations(DEFAULT_SITE_HANDLE).SiteSettings, { site: DEFAULT_SITE_HANDLE })
const valueKey = `${DEFAULT_SITE_HANDLE}:q:${key}`
const settingsCalls = () => upstream.calls.filter((call) => call.operationName === 'SiteSettings').length
const page = async (path: string) => {
  const response = await request(`${system.url}${path}`)
  return { status: response.statusCode, cache: response.headers['x-cache'], html: await response.body.text() }
}
/** What the site's settings put in every page: the footer's contact details. */
const isWhole = (html: string) => html.includes('site-footer__grid') && html.includes('088 - 123 45 00')
const REFUSAL = 'refused an entry from redis; dropped it and asked the CMS'

// A first page puts a good entry in Redis: the bad ones are made from it.
if ((await page('/')).status !== 200) throw new Error('the home page failed')
const good = await redis.client.get(valueKey)
if (!good) throw new Error(`no entry of the site's settings in redis under ${valueKey}`)
const goodBody = good.slice(good.indexOf('\n') + 1)
const entry = (header: unknown[], body: string) => `${JSON.stringify(header)}\n${body}`
const DAY_MS = 86_400_000

const cases: { name: string; path: string; stored: () => string }[] = [
  { name: 'no root fields: {"data":{}}', path: '/over-ons', stored: () => entry([Date.now(), 200, ['siteSettings']], '{"data":{}}') },
  { name: 'no data: {"data":null}', path: '/kantoren', stored: () => entry([Date.now(), 200, ['siteSettings']], '{"data":null}') },
  { name: 'an error stored: status 500', path: '/werken-bij', stored: () => entry([Date.now(), 500, []], '{"errors":[{"message":"Internal Server Error"}]}') },
  {
    name: 'an answer with errors',
    path: '/actueel',
    stored: () => entry([Date.now(), 200, []], goodBody.replace(/^\{/, '{"errors":[{"message":"partial"}],')),
  },
  {
    name: 'fetched a day from now (an old company name that would stay fresh)',
    path: '/onze-verzekeringen',
    stored: () => entry([Date.now() + DAY_MS, 200, ['siteSettings']], goodBody.replaceAll('088 - 123 45 00', '099 - 999 99 99')),
  },
  { name: 'not a GraphQL answer', path: '/services', stored: () => entry([Date.now(), 200, []], '{"globalSet":{}}') },
]

for (const bad of cases) {
  t.test(`an entry in redis with ${bad.name} is refused`, async (t) => {
    const planted = bad.stored()
    t.equal(await redis.client.set(valueKey, planted, 'PX', DAY_MS), 'OK', 'planted')
    // Only Redis holds the settings now: the gateway's memory and its stored pages are empty.
    system.gateway.cache.purge()
    const calls = settingsCalls()
    const refused = nextEvent(tier, 'refused', 'the entry is refused', (refusedKey) => refusedKey === key)

    const first = await page(bad.path)
    t.equal(first.status, 200, 'the page is answered')
    t.ok(isWhole(first.html), 'with the header and footer of the CMS answer')
    t.equal(settingsCalls(), calls + 1, 'the gateway asked the CMS for the settings')
    const replaced = await redis.client.get(valueKey)
    t.not(replaced, planted, 'the bad entry is gone from redis')
    t.ok(replaced?.includes('088 - 123 45 00'), "the CMS answer is stored in its place")

    const [, reason] = await refused
    t.pass(`refused as ${reason}`)

    const again = await page(bad.path)
    t.equal(again.status, 200, 'asked again')
    t.ok(isWhole(again.html), 'the page kept is whole too')
  })
}

t.test('refusals are logged, at most once per interval', async (t) => {
  const lines = system.gatewayLogs.lines.filter((line) => line.msg === REFUSAL)
  t.equal(lines.length, 1, 'one line for all the refusals above')
  t.equal(lines[0]?.key, key, 'naming the key')
})

t.test("rich text read from redis is cleaned as the CMS's answers are, before a payload or page has it", async (t) => {
  if ((await page('/over-ons')).status !== 200) throw new Error('the about page failed')
  const keys = await redis.client.keys(`${DEFAULT_SITE_HANDLE}:q:*`)
  let planted = 0
  for (const stored of keys) {
    // Whole pages live beside the answers, signed: a changed one is refused whole (test/redis/page-flights.test.ts).
    if (stored.includes(':q:page:')) continue
    const value = await redis.client.get(stored)
    if (!value?.includes('Jan van der Borg')) continue
    const poisoned = value.replace('In 1987 begonnen', 'In 1987<script>alert(1)<\\/script><img src=x onerror=alert(2)> begonnen')
    t.not(poisoned, value, `planted in ${stored}`)
    await redis.client.set(stored, poisoned, 'KEEPTTL')
    planted++
  }
  t.equal(planted, 1, 'the about page entry is in redis')
  system.gateway.cache.purge()
  const payload = await request(`${system.url}/over-ons/_payload.json`)
  const json = await payload.body.text()
  t.equal(payload.statusCode, 200)
  t.match(json, /In 1987/, 'the entry from redis is used')
  t.notMatch(json, /<script|onerror/, 'without its script or handler')
  const html = (await page('/over-ons')).html
  t.notMatch(html, /alert\(1\)|onerror=alert/, 'nor in the page')
})
