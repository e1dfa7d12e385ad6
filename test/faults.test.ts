import t, { type Test } from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../shared/constants.ts'
import { startFaultySystem } from './helpers/fault-upstream.ts'
import { h1Of } from './helpers/html.ts'
import { getPage } from './helpers/http.ts'
import { type System, startSystem } from './helpers/system.ts'

const ERROR_HEADING = 'Er is iets misgegaan.'
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const get = (system: System, path: string, headers: Record<string, string> = {}) => getPage(`${system.url}${path}`, { headers })

/** Entries expire almost at once, so every request after a short pause asks the CMS again. */
const SHORT_TTLS = { CACHE_TTL_MS: '100', CACHE_SWR_MS: '0', PAGE_CACHE_TTL_MS: '100' }

const faultySystem = (t: Test, env: Record<string, string> = {}, tweak?: Parameters<typeof startSystem>[1]) => startFaultySystem(t, { LOG_LEVEL: 'debug', ...env }, tweak)

/** The about page as Craft would send it, with the given title. */
function aboutPage(title: string): string {
  const section = `${DEFAULT_SITE_HANDLE}About`
  return JSON.stringify({
    data: {
      entry: { id: '102', title, slug: 'over-ons', uri: 'over-ons', postDate: null, dateUpdated: null, sectionHandle: section, typeHandle: section, intro: 'Intro', text: '<p>Tekst</p>', seoDescription: null },
    },
  })
}

/** Until every request the gateway took has been answered: a close while one is in flight waits out the keep-alive timeout. */
async function settled(system: System): Promise<void> {
  const count = (msg: string): number => system.gatewayLogs.lines.filter((line) => line.msg === msg).length
  for (let i = 0; i < 100 && count('incoming request') > count('request completed'); i++) await pause(50)
}

function noErrorsLogged(t: Test, system: System): void {
  const fatal = [...system.gatewayLogs.lines, ...system.rendererLogs.lines].filter((line) => Number(line.level) >= 60)
  t.same(fatal, [], 'nothing fatal logged')
}

t.test('CMS down for a while: cached pages stay, uncached ones get the Dutch error page, and the site recovers by itself', async (t) => {
  const { system, upstream } = await faultySystem(t, SHORT_TTLS)
  const cachedPaths = ['/', '/over-ons', '/kantoren', '/topical']
  const before = new Map<string, string | undefined>()
  for (const path of cachedPaths) {
    const page = await get(system, path)
    t.equal(page.status, 200, `${path} renders while the CMS is up`)
    before.set(path, h1Of(page.html))
  }
  await pause(250)

  upstream.behave = () => ({ kind: 'destroy' })
  for (let round = 0; round < 2; round++) {
    for (const path of cachedPaths) {
      const page = await get(system, path)
      t.equal(page.status, 200, `${path}: still served with the CMS down (round ${round + 1})`)
      t.equal(h1Of(page.html), before.get(path), `${path}: the same content as before`)
    }
    const payload = await request(`${system.url}/over-ons/_payload.json`)
    await payload.body.dump()
    t.equal(payload.statusCode, 200, 'its payload too')
    t.equal(payload.headers['x-cache'], 'STALE', 'from the stale entries')
    await pause(150)
  }
  for (const path of ['/disclaimer', '/werken-bij']) {
    const page = await get(system, path)
    t.ok(page.status === 502 || page.status === 503, `${path}, never cached: 502 or 503 (got ${page.status})`)
    t.equal(h1Of(page.html), ERROR_HEADING, 'the Dutch error page')
    t.match(page.html, /<html lang="nl"/)
    t.equal(page.headers['cache-control'], 'private, no-store', 'which nobody keeps')
  }
  t.equal((await get(system, '/healthz')).status, 200, 'the gateway is alive')

  upstream.behave = (call) => (call.operationName === 'AboutPage' ? { kind: 'answer', status: 200, body: aboutPage('Over ons, vernieuwd') } : { kind: 'pass' })
  await pause(150)
  const recovered = await get(system, '/over-ons')
  t.equal(recovered.status, 200, 'the CMS is back: the page renders')
  t.equal(h1Of(recovered.html), 'Over ons, vernieuwd', 'with fresh content, without a restart or purge')
  for (const path of ['/disclaimer', '/werken-bij']) t.equal((await get(system, path)).status, 200, `${path} renders again`)
  noErrorsLogged(t, system)
})

t.test('CMS answering garbage or data with errors: a clear error, nothing poisonous cached', async (t) => {
  const { system, upstream } = await faultySystem(t)
  const heading = h1Of((await get(system, '/over-ons')).html)
  const answers = [
    { label: 'HTML instead of JSON', body: '<html><body>Bad gateway</body></html>', contentType: 'text/html' },
    { label: 'truncated JSON', body: '{"data": {"entry": {"title": "Ov' },
    { label: 'JSON that is no GraphQL answer', body: '[1, 2, 3]' },
    { label: 'data with errors', body: JSON.stringify({ data: { entry: null }, errors: [{ message: 'Internal server error in the CMS' }] }) },
    { label: 'data with errors and content', body: JSON.stringify({ ...JSON.parse(aboutPage('Vergiftigd')), errors: [{ message: 'partial failure' }] }) },
    // Not "no such entry" (that is `entry: null`): an answer without the field, which must not make the page a cached 404.
    { label: 'data without the fields the page needs', body: '{"data":{}}' },
  ]
  for (const answer of answers) {
    system.gateway.cache.purge()
    system.gateway.pageCache.clear()
    upstream.behave = (call) => (call.operationName === 'AboutPage' ? { kind: 'answer', status: 200, body: answer.body, contentType: answer.contentType } : { kind: 'pass' })
    const page = await get(system, '/over-ons')
    t.ok(page.status >= 500 && page.status < 600, `${answer.label}: an error status (got ${page.status})`)
    t.equal(h1Of(page.html), ERROR_HEADING, `${answer.label}: the Dutch error page`)
    t.notMatch(page.html, /Vergiftigd|Internal server error in the CMS|partial failure|Bad gateway/, `${answer.label}: nothing of the answer leaks`)
    t.equal(page.headers['cache-control'], 'private, no-store')

    const payload = await request(`${system.url}/over-ons/_payload.json`)
    const json = (await payload.body.json()) as { status?: number }
    t.ok(payload.statusCode >= 500, `${answer.label}: the payload is an error too (got ${payload.statusCode})`)
    t.equal(json.status, payload.statusCode, 'with its status in the JSON')
    t.equal(payload.headers['cache-control'], 'private, no-store')

    upstream.behave = () => ({ kind: 'pass' })
    const healthy = await get(system, '/over-ons')
    t.equal(healthy.status, 200, `${answer.label}: healthy again, the page is right at once`)
    t.equal(h1Of(healthy.html), heading)
    t.equal(healthy.headers['x-cache'], 'MISS', 'nothing of the bad answer was kept')
  }
  noErrorsLogged(t, system)
})

t.test('a render that degrades after the shell is not page-cached', async (t) => {
  t.test('deferred data failed: the visitor gets the page, the cache does not', async (t) => {
    const { system, upstream } = await faultySystem(t)
    upstream.behave = (call) => (call.operationName === 'LatestArticles' ? { kind: 'answer', status: 500, body: 'nope', contentType: 'text/plain' } : { kind: 'pass' })
    const degraded = await get(system, '/')
    t.equal(degraded.status, 200, 'the shell went out as a 200')
    t.match(degraded.html, 'Het laatste nieuws kan nu niet worden geladen.', 'with the placeholder for the failed part')
    await pause(50)
    const again = await get(system, '/')
    t.equal(again.headers['x-cache'], 'MISS', 'the degraded page was not stored')
    t.equal(again.headers['cache-control'], 'private, no-cache')
    t.ok(system.gatewayLogs.lines.some((line) => line.msg === 'degraded render; not cached'), 'the gateway says why')

    upstream.behave = () => ({ kind: 'pass' })
    const complete = await get(system, '/')
    t.match(complete.html, 'data-loaded="true"')
    t.notMatch(complete.html, 'kan nu niet worden geladen')
    await pause(50)
    const cached = await get(system, '/')
    t.equal(cached.headers['x-cache'], 'HIT', 'a complete page is stored as before')
    t.notMatch(cached.html, 'kan nu niet worden geladen')
  })

  t.test('render timeout: aborted after the shell, not stored', async (t) => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const { system, upstream } = await faultySystem(t, { RENDER_TIMEOUT_MS: '400' }, (config) => {
      config.renderTimeoutMs = 10_000
    })
    t.teardown(() => release())
    upstream.behave = (call) => (call.operationName === 'LatestArticles' ? { kind: 'hold', until: held } : { kind: 'pass' })
    const aborted = await get(system, '/')
    t.equal(aborted.status, 200)
    t.match(aborted.html, /<\/html>$/, 'the document still completes')
    t.notMatch(aborted.html, 'data-loaded="true"', 'without the part that timed out')
    await pause(50)
    const again = await get(system, '/')
    t.equal(again.headers['x-cache'], 'MISS', 'the aborted page was not stored')
    release()
    await settled(system)
    noErrorsLogged(t, system)
  })
})
