import t from 'tap'
import { request } from 'undici'
import { CrawlerVerifier, type VerificationOutcome } from '../../gateway/admission/crawlers.ts'
import { clientKey } from '../../gateway/http/client-key.ts'
import { BINGBOT_UA, GOOGLEBOT_UA, StubResolver } from '../helpers/crawler-dns.ts'
import { get as getUrl } from '../helpers/http.ts'
import { type System, startSystem } from '../helpers/system.ts'
import { until } from '../helpers/until.ts'

const HOUR = String(60 * 60 * 1000)
const get = (system: System, path: string, address: string, userAgent: string) =>
  getUrl(`${system.url}${path}`, { headers: { 'x-forwarded-for': address, 'user-agent': userAgent } })

t.test("a flood of addresses claiming Googlebot costs at most the bound of DNS questions, and no request waits for one", async (t) => {
  const dns = new StubResolver()
  let answer = (): void => undefined
  dns.hold = new Promise<void>((resolve) => (answer = resolve))
  // Every page through the full route (no page cache), every check held until the test lets DNS answer.
  const system = await startSystem(
    { TRUST_PROXY: '1', PAGE_CACHE: 'false', CRAWLER_LOOKUPS_IN_FLIGHT: '4', CRAWLER_LOOKUPS_PER_CLIENT: '2', CRAWLER_LOOKUP_TIMEOUT_MS: '60000', RATE_LIMIT_WINDOW_MS: HOUR },
    undefined,
    { crawlerResolver: dns },
  )
  t.teardown(async () => {
    answer()
    await system.close()
  })
  const reverses = (): number => dns.asked.filter((question) => question.startsWith('reverse ')).length
  const pages = async (addresses: string[]): Promise<number[]> => Promise.all(addresses.map(async (address) => (await get(system, '/kantoren', address, GOOGLEBOT_UA)).status))
  const range = (count: number, address: (n: number) => string): string[] => Array.from({ length: count }, (_, n) => address(n + 1))

  t.same(await pages(range(5, () => '198.51.100.1')), [200, 200, 200, 200, 200], 'five requests at once from one address, answered while its check waits')
  t.equal(dns.times('reverse 198.51.100.1'), 1, 'share one check')
  t.same(new Set(await pages(range(10, (n) => `2001:db8:5::${n}`))), new Set([200]), 'ten addresses of one /64, answered')
  t.equal(reverses(), 3, 'cost CRAWLER_LOOKUPS_PER_CLIENT (2) checks')
  t.same(new Set(await pages(range(10, (n) => `198.51.100.${10 + n}`))), new Set([200]), 'ten more addresses, answered')
  t.equal(reverses(), 4, 'checks in flight stop at CRAWLER_LOOKUPS_IN_FLIGHT (4)')
  t.equal(system.gateway.crawlers.inFlight, 4)

  answer()
  await until(() => system.gateway.crawlers.inFlight === 0, 'the checks ended')
  await pages(['198.51.100.30', '2001:db8:5::30'])
  t.equal(reverses(), 5, 'once they ended a new address is checked, but not one more of the /64 in this window')
  await until(() => system.gateway.crawlers.inFlight === 0, 'the last check ended')
  const metrics = await (await request(`${system.internalUrl}/metrics`)).body.text()
  t.match(metrics, /^crawler_verifications_total\{[^}]*outcome="skipped"[^}]*\} 18$/m, 'the requests not checked, counted')
  t.match(metrics, /^crawler_verifications_total\{[^}]*outcome="no_ptr"[^}]*\} 5$/m, 'the checks made')
})

t.test('an IPv6 Bingbot is checked at its exact address and charged to the crawler budget of its /64; a neighbour with its User-Agent is not', async (t) => {
  const dns = new StubResolver()
  const bingbot = '2001:db8:4801:7::66'
  // The gateway asks of the address written out; the forward answer, written short, is the same address.
  dns.answer('2001:db8:4801:7:0:0:0:66', 'msnbot-2001-db8-4801-7--66.search.msn.com', [bingbot])
  const system = await startSystem({ TRUST_PROXY: '1', RATE_LIMIT_WINDOW_MS: HOUR }, undefined, { crawlerResolver: dns })
  t.teardown(() => system.close())
  const { admission, crawlers } = system.gateway
  const prefix = clientKey(bingbot)

  t.equal((await get(system, '/kantoren', '2001:db8:4801:7::99', 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0')).status, 200)
  t.same(dns.asked, [], 'a browser is never looked up')
  await get(system, '/', bingbot, BINGBOT_UA)
  await until(() => crawlers.inFlight === 0, 'its check ended')
  t.same(dns.asked, ['reverse 2001:db8:4801:7:0:0:0:66', 'resolve6 msnbot-2001-db8-4801-7--66.search.msn.com'])
  t.equal((await get(system, '/over-ons', bingbot, BINGBOT_UA)).cache, 'MISS')
  t.ok(admission.crawlerBudget.balance(prefix) < system.gateway.config.crawlers.workBudget, `its render charged to the crawler budget of ${prefix}`)

  const neighbour = '2001:db8:4801:7::67'
  const strangerBefore = admission.budget.balance(prefix)
  await get(system, '/werken-bij', neighbour, BINGBOT_UA)
  await until(() => crawlers.inFlight === 0, "the neighbour's check ended")
  t.equal(dns.times('reverse 2001:db8:4801:7:0:0:0:67'), 1, 'the neighbour is checked at its own address')
  t.equal((await get(system, '/contact', neighbour, BINGBOT_UA)).cache, 'MISS')
  t.ok(admission.budget.balance(prefix) < strangerBefore, "and its renders are charged to the /64's stranger budget")
})

t.test('a check that DNS never answers fails after its timeout, and the address is not asked again meanwhile', async (t) => {
  const dns = new StubResolver()
  dns.hold = new Promise<void>(() => undefined)
  const outcomes: VerificationOutcome[] = []
  const verifier = new CrawlerVerifier({ resolver: dns, timeoutMs: 100, inFlight: 4, perClient: 4, windowMs: 60_000, maxClients: 100, onOutcome: (_, outcome) => outcomes.push(outcome) })
  t.equal(verifier.crawlerOf('192.0.2.9', GOOGLEBOT_UA, '192.0.2.9'), undefined, 'a stranger until checked')
  await until(() => outcomes.length > 0, 'the check ended')
  t.same(outcomes, ['failed'])
  t.equal(verifier.crawlerOf('192.0.2.9', GOOGLEBOT_UA, '192.0.2.9'), undefined, 'still a stranger')
  t.equal(dns.times('reverse 192.0.2.9'), 1, 'not asked again')
  t.equal(verifier.inFlight, 0)
})
