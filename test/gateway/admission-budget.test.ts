import t, { type Test } from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { startFaultUpstream } from '../helpers/fault-upstream.ts'
import { get as getUrl } from '../helpers/http.ts'
import { type System, startSystem } from '../helpers/system.ts'
import { sitemapLocs } from '../helpers/sitemap.ts'
import { until } from '../helpers/until.ts'

// One budget of uncached work per client (CLIENT_WORK_BUDGET): a render is a unit, a CMS call for a request a unit.
// The window is an hour, so that nothing refills while a test runs; previews are limited by the budget only.
const BUDGET = 12
const HOUR = String(60 * 60 * 1000)
const env = { TRUST_PROXY: '1', CLIENT_WORK_BUDGET: String(BUDGET), RATE_LIMIT_WINDOW_MS: HOUR, PREVIEW_RATE_LIMIT: '100000' }

let counter = 0
/** A request from `client`, each with a request id of its own. */
const get = (system: System, path: string, client: string, headers: Record<string, string> = {}) =>
  getUrl(`${system.url}${path}`, { headers: { 'x-forwarded-for': client, 'x-request-id': `admission-${++counter}`, ...headers } })

/** Unique junk preview tokens from one client until it is refused; how many were let through. */
async function spend(t: Test, system: System, client: string): Promise<number> {
  for (let n = 0; n < BUDGET + 1; n++) {
    const answer = await get(system, `/kantoren?x-craft-preview=1&token=junk-${client.replace(/\W/g, '-')}-${n}`, client)
    if (answer.status === 429) return n
    if (answer.status !== 200) t.fail(`preview ${n} answered ${answer.status}`)
  }
  t.fail('the client was never refused')
  return BUDGET + 1
}

t.test('one /64 spending its budget on unique junk previews is refused with 429 and Retry-After; another client still gets work done', async (t) => {
  const system = await startSystem(env)
  t.teardown(() => system.close())
  const attacker = (n: number) => `2001:db8:1:2::${n.toString(16)}`
  const let_through = await spend(t, system, attacker(1))
  t.ok(let_through >= 1 && let_through < BUDGET, `${let_through} previews, each a render and its CMS calls, used the budget of ${BUDGET}`)

  for (const [path, kind] of [
    ['/over-ons?x-craft-preview=1&token=junk-other', 'a preview page'],
    ['/over-ons', 'a page never stored'],
  ] as const) {
    const refused = await get(system, path, attacker(0xbeef))
    t.equal(refused.status, 429, `${kind} from another address of the /64 is refused`)
    t.match(refused.headers['retry-after'], /^\d+$/, 'with Retry-After')
    t.match(refused.headers['content-type'], /^text\/html/, 'the Dutch page')
    t.match(refused.body, /erg veel pagina/)
    t.equal(refused.headers['cache-control'], 'private, no-store')
  }
  const payload = await get(system, '/over-ons/_payload.json', attacker(7), { 'x-craft-token': 'junk-header' })
  t.equal(payload.status, 429, 'a preview payload too')
  t.equal(JSON.parse(payload.body).errors[0].extensions.code, 'RATE_LIMITED', 'a JSON error')
  t.match(payload.headers['retry-after'], /^\d+$/)

  const api = await request(`${system.url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': attacker(9) },
    body: JSON.stringify({ query: createOperations(DEFAULT_SITE_HANDLE).ArticleBySlug, variables: { slug: ['unknown'] } }),
  })
  t.equal(api.statusCode, 429, '/api too')
  t.equal(((await api.body.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code, 'RATE_LIMITED')
  t.match(api.headers['retry-after'], /^\d+$/)
  const metrics = await (await request(`${system.internalUrl}/metrics`)).body.text()
  t.match(metrics, /^admission_total\{[^}]*kind="client"[^}]*outcome="refused"[^}]*\} [1-9]/m, 'refusals counted in /metrics')

  t.equal((await get(system, '/kantoren?x-craft-preview=1&token=junk-elsewhere', '2001:db8:1:3::1')).status, 200, 'the next /64 previews')
  t.equal((await get(system, '/over-ons', '198.51.100.7')).status, 200, 'and an IPv4 client gets a page rendered')
})

t.test('over budget, a client gets the stored page (200 STALE), and 429 only where none is stored', async (t) => {
  // Every stored page is past its TTL at once, and none is served while it is rendered again: each render is charged.
  const system = await startSystem({ ...env, PAGE_CACHE_TTL_MS: '0', CACHE_SWR_MS: '0' })
  t.teardown(() => system.close())
  const client = '203.0.113.9'
  const first = await get(system, '/kantoren', client)
  t.equal(first.status, 200)
  t.equal(first.headers['x-cache'], 'MISS', 'rendered and stored')
  await spend(t, system, client)
  const stored = await get(system, '/kantoren', client)
  t.equal(stored.status, 200, 'the stored page')
  t.equal(stored.headers['x-cache'], 'STALE')
  t.match(stored.body, /<h1/)
  t.equal((await get(system, '/werken-bij', client)).status, 429, 'a page never stored is refused')
  const other = await get(system, '/kantoren', '203.0.113.10')
  t.equal(other.headers['x-cache'], 'MISS', 'another client has it rendered again')
})

t.test('rendering a stored page again (a revalidation) is charged to no one', async (t) => {
  // Past its TTL at once, within the stale-while-revalidate window: the next request renders it again.
  const system = await startSystem({ ...env, PAGE_CACHE_TTL_MS: '0', CACHE_SWR_MS: '600000' })
  t.teardown(() => system.close())
  const client = '203.0.113.20'
  t.equal((await get(system, '/kantoren', client)).headers['x-cache'], 'MISS', 'rendered and stored')
  await spend(t, system, client)
  t.equal((await get(system, '/werken-bij', client)).status, 429, 'the client is over its budget')
  for (let n = 0; n < 3; n++) {
    const again = await get(system, '/kantoren', client)
    t.equal(again.status, 200)
    t.equal(again.headers['x-cache'], 'MISS', `revalidation ${n + 1}: rendered again for an over-budget visitor, free of charge`)
  }
})

t.test('with the default budget, a crawler fetching every page of the sitemap on a cold cache is never refused', async (t) => {
  const system = await startSystem({ TRUST_PROXY: '1' })
  t.teardown(() => system.close())
  const crawler = '192.0.2.44'
  const paths = (await sitemapLocs(system.url, async (path) => (await get(system, path, crawler)).body)).map((loc) => new URL(loc).pathname)
  t.ok(paths.length >= 30, `${paths.length} pages`)
  for (const path of [...paths, ...paths.map((path) => `${path === '/' ? '' : path}/_payload.json`)]) {
    const answer = await get(system, path, crawler)
    t.equal(answer.status, 200, path)
  }
  const spent = system.gateway.config.admission.clientWorkBudget - system.gateway.admission.budget.balance(crawler)
  t.comment(`a crawl of ${paths.length} pages and their payloads spent ${spent.toFixed(1)} of ${system.gateway.config.admission.clientWorkBudget} units`)
  t.ok(spent <= system.gateway.config.admission.clientWorkBudget / 2, 'at most half the default budget')
  const { renders, cms } = system.gateway.admission
  await until(() => renders.inFlight === 0 && cms.inFlight === 0, 'every slot given back')
  t.pass('every render slot, streamed pages too, and every CMS slot was given back')
})

t.test("a render begun beside a redirect lookup charges its page's client, never the renderer's address", async (t) => {
  const upstream = await startFaultUpstream()
  let release = (): void => undefined
  const redirectsHeld = new Promise<void>((resolve) => (release = resolve))
  upstream.behave = (call) => (call.operationName === 'Redirects' ? { kind: 'hold', until: redirectsHeld } : { kind: 'pass' })
  // The home page's deferred data is not at hand on a cold cache: the renderer fetches it, from loopback, under the page's request id.
  const system = await startSystem({ ...env, CRAFT_API_URL: upstream.url })
  t.teardown(async () => {
    release()
    await system.close()
    await upstream.close()
  })
  const client = '203.0.113.50'
  const page = get(system, '/', client, { 'x-request-id': 'beside-redirects' })
  await until(() => upstream.calls.some((call) => call.requestId === 'beside-redirects' && call.operationName !== 'Redirects'), "the render's data asked for while the redirects are held")
  release()
  t.equal((await page).status, 200)
  const { budget } = system.gateway.admission
  t.equal(budget.balance('127.0.0.1'), BUDGET, "the renderer's address spent nothing")
  // Its render, and the CMS calls of the data gathered for it before it was admitted (beside the redirect lookup).
  t.ok(budget.balance(client) <= BUDGET - 2, `the page's client paid for its render and its CMS calls (${budget.balance(client)} left)`)
})

t.test('with no renderer up nothing is rendered, so nothing is charged: a never-stored page is the 503 page, never a 429', async (t) => {
  const system = await startSystem(env)
  t.teardown(() => system.close())
  await system.renderer.close()
  const client = '198.51.100.77'
  // The first render finds the renderer gone and marks it down.
  t.equal((await get(system, '/over-ons', client)).status, 503)
  t.ok(system.gateway.renderers.noneUp(), 'no renderer up')
  const statuses: Record<number, number> = {}
  for (let n = 0; n < BUDGET * 2; n++) {
    const answer = await get(system, `/actueel?pagina=${n + 2}`, client)
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1
  }
  // nginx takes a 503 to the next gateway (deploy/nginx.conf); a 429 would have ended the visit at this one.
  t.same(statuses, { 503: BUDGET * 2 }, 'twice the budget of misses, each the 503 page')
})
