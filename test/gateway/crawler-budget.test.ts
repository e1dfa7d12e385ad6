import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { SCALES, writeScaledContent } from '../../scripts/scale-content.ts'
import { GOOGLEBOT_UA, StubResolver } from '../helpers/crawler-dns.ts'
import { get as getUrl } from '../helpers/http.ts'
import { sitemapLocs } from '../helpers/sitemap.ts'
import { type System, startSystem } from '../helpers/system.ts'
import { until } from '../helpers/until.ts'

// Ten times the content (scripts/scale-content.ts: some 1,100 pages in the sitemap) and every budget at its default:
// a verified Googlebot's crawl of the whole site from one address, and clients that only say they are Googlebot.
// The window is an hour, so nothing is refilled while a test runs: the whole crawl fits in one budget.
t.setTimeout(600_000)
const dir = mkdtempSync(join(tmpdir(), 'crawler-budget-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
writeScaledContent(dir, SCALES[10])
const env = { CONTENT_DIR: dir, TRUST_PROXY: '1', RATE_LIMIT_WINDOW_MS: String(60 * 60 * 1000) }

const visitor = (system: System, address: string) => (path: string) =>
  getUrl(`${system.url}${path}`, { headers: { 'x-forwarded-for': address, 'user-agent': GOOGLEBOT_UA } })

const metricsOf = async (system: System): Promise<string> => (await request(`${system.internalUrl}/metrics`)).body.text()

/** The first page from `address`, then its check's end: until then it is a stranger. */
async function checked(t: Test, system: System, address: string): Promise<void> {
  t.equal((await visitor(system, address)('/')).status, 200, `${address}: its first page, while its check is under way`)
  await until(() => system.gateway.crawlers.inFlight === 0, `the check of ${address} ended`)
}

t.test('a verified Googlebot crawls every page of the sitemap of a 10× site from one address, never refused', async (t) => {
  const dns = new StubResolver()
  const address = '192.0.2.66'
  dns.answer(address, 'crawl-192-0-2-66.googlebot.com.')
  const system = await startSystem(env, undefined, { crawlerResolver: dns })
  t.teardown(() => system.close())
  const get = visitor(system, address)
  await checked(t, system, address)
  const paths = (await sitemapLocs(system.url, async (path) => (await get(path)).body)).map((loc) => new URL(loc).pathname)
  t.ok(paths.length > 1000, `${paths.length} pages`)
  const refused: string[] = []
  for (const path of paths) {
    const answer = await get(path)
    if (answer.status !== 200) refused.push(`${path}: ${answer.status}`)
  }
  t.same(refused, [], 'every page answered 200')
  const { config, admission } = system.gateway
  const spent = config.crawlers.workBudget - admission.crawlerBudget.balance(address)
  t.comment(`the crawl of ${paths.length} pages spent ${spent.toFixed(0)} of the crawler budget of ${config.crawlers.workBudget}`)
  t.ok(spent > config.admission.clientWorkBudget, `more than a stranger's ${config.admission.clientWorkBudget}`)
  t.equal(dns.times(`reverse ${address}`), 1, 'its address was looked up once')
  t.equal(dns.times('resolve4 crawl-192-0-2-66.googlebot.com'), 1, 'and its name once')
  const metrics = await metricsOf(system)
  t.match(metrics, /^crawler_verifications_total\{[^}]*crawler="googlebot"[^}]*outcome="verified"[^}]*\} 1$/m, 'the verification counted')
  t.match(metrics, /^admission_total\{[^}]*kind="crawler"[^}]*outcome="admitted"[^}]*\} [1-9]/m)
  t.notMatch(metrics, /^admission_total\{[^}]*kind="crawler"[^}]*outcome="refused"/m, 'no crawler refused')
})

t.test('a client that says it is Googlebot but fails the check is refused at the budget of a stranger', async (t) => {
  const dns = new StubResolver()
  const fakes = {
    '192.0.2.70': 'whose name is under googlebot.com but resolves elsewhere',
    '192.0.2.71': 'whose name is under another domain',
    '192.0.2.72': 'on a Google Cloud machine (googleusercontent.com)',
    '192.0.2.73': 'without a reverse name',
  }
  dns.answer('192.0.2.70', 'crawl-192-0-2-70.googlebot.com', ['192.0.2.170'])
  dns.answer('192.0.2.71', 'crawl-192-0-2-71.googlebot.com.example.net')
  dns.answer('192.0.2.72', '72.2.0.192.bc.googleusercontent.com')
  const system = await startSystem(env, undefined, { crawlerResolver: dns })
  t.teardown(() => system.close())
  const paths = (await sitemapLocs(system.url)).map((loc) => new URL(loc).pathname)
  for (const [address, which] of Object.entries(fakes)) {
    await checked(t, system, address)
    const get = visitor(system, address)
    let answered = 0
    let refusal: Awaited<ReturnType<typeof get>> | undefined
    for (const path of paths) {
      const answer = await get(path)
      if (answer.status === 429) {
        refusal = answer
        break
      }
      answered++
    }
    t.ok(refusal, `a client ${which} got 429 after ${answered} of ${paths.length} pages`)
    t.match(refusal?.headers['retry-after'], /^\d+$/, 'with Retry-After')
    t.equal(dns.times(`reverse ${address}`), 1, 'its address was looked up once')
  }
  t.equal(system.gateway.admission.crawlerBudget.size, 0, 'no crawler budget was charged')
  const metrics = await metricsOf(system)
  for (const [outcome, count] of [['forward_mismatch', 1], ['other_domain', 2], ['no_ptr', 1]] as const) {
    t.match(metrics, new RegExp(`^crawler_verifications_total\\{[^}]*outcome="${outcome}"[^}]*\\} ${count}$`, 'm'), `${outcome}: ${count}`)
  }
  t.notMatch(metrics, /outcome="verified"/, 'none verified')
})
