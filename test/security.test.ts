import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../shared/constants.ts'
import { createOperations } from '../shared/operations.ts'
import { startFaultUpstream } from './helpers/fault-upstream.ts'
import { h1Of } from './helpers/html.ts'
import { startSystem } from './helpers/system.ts'

t.test('rich text from the CMS is sanitised against an allowlist', async (t) => {
  const upstream = await startFaultUpstream()
  const system = await startSystem({ CRAFT_API_URL: upstream.url })
  t.teardown(async () => {
    await system.close()
    await upstream.close()
  })
  const hostile =
    '<h1>Tweede kop</h1><p onclick="steal()">Hallo<script>alert(1)</script><img src=x onerror="alert(2)"></p>' +
    '<a href="javascript:alert(3)">klik</a><a href="https://www.kifid.nl" target="_blank">Kifid</a><iframe src="https://evil.example"></iframe><style>body{visibility:hidden}</style>'
  upstream.behave = (call) =>
    call.operationName === 'AboutPage'
      ? {
          kind: 'answer',
          status: 200,
          body: JSON.stringify({
            data: {
              entry: { id: '102', title: 'Over ons', slug: 'over-ons', uri: 'over-ons', postDate: null, dateUpdated: null, sectionHandle: `${DEFAULT_SITE_HANDLE}About`, typeHandle: `${DEFAULT_SITE_HANDLE}About`, intro: 'Intro', text: hostile, seoDescription: null },
            },
          }),
        }
      : { kind: 'pass' }
  const response = await request(`${system.url}/over-ons`)
  const html = await response.body.text()
  t.equal(response.statusCode, 200)
  t.equal(h1Of(html), 'Over ons', 'one h1: the page title')
  t.match(html, '<h2>Tweede kop</h2>', 'a heading in the text becomes an h2')
  t.match(html, 'Hallo')
  for (const bad of ['alert(1)', 'onerror', 'onclick', 'javascript:', '<iframe', 'visibility:hidden']) t.notMatch(html, bad, `no ${bad}`)
  t.match(html, 'href="https://www.kifid.nl" target="_blank" rel="noopener noreferrer"', 'external links keep working, safely')
  const api = await request(`${system.url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: createOperations(DEFAULT_SITE_HANDLE).AboutPage, variables: { site: DEFAULT_SITE_HANDLE } }),
  })
  t.notMatch(await api.body.text(), '<script>', 'the API answers sanitised text too')
})

t.test('rate limits on /api and the purge endpoint', async (t) => {
  const system = await startSystem({ API_RATE_LIMIT: '5', PURGE_RATE_LIMIT: '2', PURGE_SECRET: 's3cret' })
  t.teardown(() => system.close())
  const body = JSON.stringify({ query: createOperations(DEFAULT_SITE_HANDLE).ServiceList, variables: { site: DEFAULT_SITE_HANDLE } })
  const statuses: number[] = []
  for (let i = 0; i < 7; i++) {
    const response = await request(`${system.url}/api`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    statuses.push(response.statusCode)
    if (response.statusCode === 429) {
      const json = (await response.body.json()) as { errors: { extensions: { code: string } }[] }
      t.equal(json.errors[0]?.extensions.code, 'RATE_LIMITED')
    } else await response.body.dump()
  }
  t.same(statuses, [200, 200, 200, 200, 200, 429, 429])
  const purges: number[] = []
  for (let i = 0; i < 3; i++) {
    const response = await request(`${system.url}/api/purge`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-purge-secret': 's3cret' }, body: '{}' })
    await response.body.dump()
    purges.push(response.statusCode)
  }
  t.same(purges, [200, 200, 200], 'successful purges never count (test/gateway/purge-failures.test.ts: failures do)')
  const page = await request(`${system.url}/over-ons`)
  await page.body.dump()
  t.equal(page.statusCode, 200, 'pages are not limited')
})

t.test('security headers; a CSP with a fresh nonce per streamed page and hashes for cached ones', async (t) => {
  const system = await startSystem({ CMS_ORIGIN: 'https://cms.havenborg.example' })
  t.teardown(() => system.close())
  const fetchPage = async (path: string, headers: Record<string, string> = {}) => {
    const response = await request(`${system.url}${path}`, { headers })
    return { headers: response.headers, html: await response.body.text() }
  }
  const first = await fetchPage('/')
  const second = await fetchPage('/')
  const fresh = String(first.headers['content-security-policy'])
  const nonce = /'nonce-([^']+)'/.exec(fresh)?.[1]
  t.ok(nonce, 'a rendered page has a nonce')
  t.match(first.html, `nonce="${nonce}"`, 'on its inline scripts')
  t.notMatch(fresh, /unsafe-inline'[^;]*;[^;]*script|script-src[^;]*unsafe-inline/, 'no unsafe-inline for scripts')
  t.match(fresh, "frame-ancestors 'self' https://cms.havenborg.example", 'only the CMS may frame the site')
  t.notOk(first.headers['x-csp-nonce'], 'the nonce hand-over header stays internal')
  const other = await fetchPage('/?ander=1')
  t.not(/'nonce-([^']+)'/.exec(String(other.headers['content-security-policy']))?.[1], nonce, 'each response its own nonce')
  t.equal(second.headers['x-cache'], 'HIT')
  const cached = String(second.headers['content-security-policy'])
  t.notMatch(cached, 'nonce-', 'a cached page carries no nonce')
  t.notMatch(second.html, /nonce="/, 'nor any nonce attribute')
  t.match(cached, /script-src 'self'( 'sha256-[A-Za-z0-9+/=]+')+/, 'its inline scripts are allowed by hash')
  t.equal(first.headers['x-content-type-options'], 'nosniff')
  t.equal(first.headers['referrer-policy'], 'strict-origin-when-cross-origin')
  t.notOk(first.headers['strict-transport-security'], 'no HSTS over plain HTTP')
})

t.test('HSTS when served over HTTPS behind a trusted proxy', async (t) => {
  const system = await startSystem({ TRUST_PROXY: '1' })
  t.teardown(() => system.close())
  const response = await request(`${system.url}/healthz`, { headers: { 'x-forwarded-proto': 'https' } })
  await response.body.dump()
  t.match(String(response.headers['strict-transport-security']), /max-age=31536000/)
})

t.test('every kind of answer has a CSP: pages their own, JSON and files nothing allowed, the fallback page its stylesheet', async (t) => {
  const system = await startSystem({ CMS_ORIGIN: 'https://cms.havenborg.example' })
  t.teardown(() => system.close())
  const fetchKind = async (path: string, init: { method?: 'GET' | 'POST' | 'DELETE'; body?: string } = {}) => {
    const headers = init.body === undefined ? {} : { 'content-type': 'application/json' }
    const response = await request(`${system.url}${path}`, { method: init.method ?? 'GET', headers, body: init.body })
    return { status: response.statusCode, headers: response.headers, body: await response.body.text() }
  }
  const cspOf = (answer: { headers: Record<string, unknown> }): string => String(answer.headers['content-security-policy'] ?? '')
  const kinds = {
    page: await fetchKind('/'),
    cachedPage: await fetchKind('/'),
    notFoundPage: await fetchKind('/nergens-te-vinden'),
    payload: await fetchKind('/over-ons/_payload.json'),
    apiError: await fetchKind('/api', { method: 'POST', body: '{"query": 1}' }),
    staticFile: await fetchKind('/styles.css'),
    image: await fetchKind('/favicon.svg'),
    fallbackPage: await fetchKind('/%00'),
    methodNotFound: await fetchKind('/over-ons', { method: 'DELETE' }),
    health: await fetchKind('/healthz'),
  }
  t.equal(kinds.page.status, 200)
  t.equal(kinds.cachedPage.headers['x-cache'], 'HIT')
  t.equal(kinds.notFoundPage.status, 404)
  t.equal(kinds.apiError.status, 400)
  t.equal(kinds.methodNotFound.status, 404)
  t.equal(kinds.staticFile.status, 200)
  t.equal(kinds.fallbackPage.status, 400)
  t.match(kinds.fallbackPage.body, '<link rel="stylesheet" href="/styles.css">', 'the fallback page is the gateway’s own HTML')
  for (const [kind, answer] of Object.entries(kinds)) {
    t.ok(cspOf(answer), `${kind}: has a Content-Security-Policy`)
    t.notOk(answer.headers['x-frame-options'], `${kind}: no X-Frame-Options (frame-ancestors decides)`)
    t.equal(answer.headers['x-content-type-options'], 'nosniff', `${kind}: nosniff`)
  }
  t.match(cspOf(kinds.page), /script-src 'self' 'nonce-/, 'a rendered page: its own policy with a nonce')
  t.match(cspOf(kinds.cachedPage), /script-src 'self' 'sha256-/, 'a cached page: hashes')
  t.match(cspOf(kinds.notFoundPage), /script-src 'self' 'nonce-/, 'the rendered 404 page: a page policy')
  for (const kind of ['payload', 'apiError', 'staticFile', 'image', 'methodNotFound', 'health'] as const) {
    t.equal(cspOf(kinds[kind]), "default-src 'none'; frame-ancestors 'none'", `${kind}: allows nothing and is never framed`)
  }
  const fallback = cspOf(kinds.fallbackPage)
  t.match(fallback, /^default-src 'none'/, 'the fallback page: nothing by default')
  t.match(fallback, /style-src 'self'/, 'but its stylesheet')
  t.notMatch(fallback, /script-src/, 'and no scripts')
  t.match(fallback, "frame-ancestors 'self' https://cms.havenborg.example", 'framed like a page (live preview)')
})

t.test('the Dutch 503 page when no renderer answers has the fallback policy too', async (t) => {
  const system = await startSystem({ PAGE_CACHE: 'false' })
  t.teardown(() => system.close())
  await system.renderer.close()
  const response = await request(`${system.url}/over-ons`)
  const html = await response.body.text()
  t.equal(response.statusCode, 503)
  t.match(html, 'Er is iets misgegaan.')
  t.match(String(response.headers['content-security-policy']), /^default-src 'none'; style-src 'self'/)
  t.notOk(response.headers['x-frame-options'])
})

t.test('behind a CDN: a page with a nonce is private, the cached page without nonces is public', async (t) => {
  const system = await startSystem({ PAGE_CACHE_TTL_MS: '60000', CACHE_SWR_MS: '600000' })
  t.teardown(() => system.close())
  const fresh = await request(`${system.url}/`)
  const freshHtml = await fresh.body.text()
  t.equal(fresh.headers['x-cache'], 'MISS')
  t.match(String(fresh.headers['content-security-policy']), "'nonce-", 'a fresh render has a nonce')
  t.match(freshHtml, / nonce="/)
  t.equal(fresh.headers['cache-control'], 'private, no-cache', 'so no shared cache may keep it; the browser revalidates')
  t.notOk(fresh.headers.etag, 'and it has no ETag: no two fresh renders are the same bytes')
  const cached = await request(`${system.url}/`)
  const cachedHtml = await cached.body.text()
  t.equal(cached.headers['x-cache'], 'HIT')
  t.equal(cached.headers['cache-control'], 'public, max-age=0, s-maxage=60, stale-while-revalidate=600', 'the same page for everyone: a CDN may keep it')
  t.notMatch(String(cached.headers['content-security-policy']), 'nonce-')
  t.notMatch(cachedHtml, / nonce="/)
  t.match(String(cached.headers.etag), /^W\/"/)
})
