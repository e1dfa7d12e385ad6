import t from 'tap'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'
import { startFaultySystem } from '../helpers/fault-upstream.ts'
import { h1Of } from '../helpers/html.ts'
import { getPage } from '../helpers/http.ts'

const ABOUT_DRAFT = 'preview-token-about-draft'
const NEW_ARTICLE = 'preview-token-new-article'
const SITE_TOKEN = 'site-default-token'
const DRAFT_ARTICLE = '/topical/concept-nieuwsbericht-renteverandering'
const liveAbout = titleOf(shippedContent(), `${DEFAULT_SITE_HANDLE}About`)

const { system, upstream } = await startFaultySystem(t, { CRAFT_TOKEN: SITE_TOKEN })

const get = (path: string, headers: Record<string, string> = {}) => getPage(`${system.url}${path}`, { headers })
const cacheSizes = () => ({ query: system.gateway.cache.size, pages: system.gateway.pageCache.size })

t.test('a preview shows the draft, privately, and offers the token as a cookie', async (t) => {
  await get('/over-ons')
  const before = cacheSizes()
  const preview = await get(`/over-ons?x-craft-preview=a1b2&token=${ABOUT_DRAFT}`)
  t.same(cacheSizes(), before, 'nothing of the preview was stored, in either cache')
  t.equal(preview.status, 200)
  t.equal(h1Of(preview.html), 'Over Havenborg (concept)')
  t.not(h1Of(preview.html), liveAbout)
  t.equal(preview.headers['cache-control'], 'private, no-store')
  t.equal(preview.headers['x-robots-tag'], 'noindex')
  t.equal(preview.headers['x-cache'], 'BYPASS')
  const cookie = String(preview.headers['set-cookie'])
  t.match(cookie, `craft_token=${ABOUT_DRAFT}`)
  t.match(cookie, 'Max-Age=604800')
  t.match(cookie, 'Path=/')
  t.match(cookie, 'HttpOnly')
  t.match(cookie, 'Secure')
  t.match(cookie, 'SameSite=None')

  const visitor = await get('/over-ons')
  t.equal(h1Of(visitor.html), liveAbout, 'visitors still see the live page')
  t.not(visitor.headers['cache-control'], 'private, no-store')
})

t.test('live preview and the cookie work the same way', async (t) => {
  const live = await get(`/over-ons?x-craft-live-preview=x&token=${ABOUT_DRAFT}`)
  t.equal(h1Of(live.html), 'Over Havenborg (concept)')
  const withCookie = await get('/over-ons', { cookie: `craft_token=${ABOUT_DRAFT}` })
  t.equal(h1Of(withCookie.html), 'Over Havenborg (concept)')
  t.equal(withCookie.headers['cache-control'], 'private, no-store')
  const before = cacheSizes()
  const payload = await get(`/over-ons/_payload.json?x-craft-preview=1&token=${ABOUT_DRAFT}`)
  t.same(cacheSizes(), before, 'nothing stored')
  t.equal(payload.headers['x-cache'], 'BYPASS')
  t.equal(payload.headers['cache-control'], 'private, no-store')
  t.match(payload.html, 'Over Havenborg (concept)')
})

t.test('without the preview marker the token parameter does nothing', async (t) => {
  const page = await get(`/over-ons?token=${ABOUT_DRAFT}`)
  t.equal(h1Of(page.html), liveAbout)
})

t.test('two editors with different tokens never see each other\'s drafts', async (t) => {
  const editorA = await get(`${DRAFT_ARTICLE}?x-craft-preview=1&token=${ABOUT_DRAFT}`)
  const editorB = await get(`${DRAFT_ARTICLE}?x-craft-preview=1&token=${NEW_ARTICLE}`)
  t.equal(editorA.status, 404, 'A does not see B\'s unpublished article')
  t.equal(editorB.status, 200, 'B does')
  t.equal(h1Of(editorB.html), 'Concept: premies 2027')
  const aboutForB = await get(`/over-ons?x-craft-preview=1&token=${NEW_ARTICLE}`)
  t.equal(h1Of(aboutForB.html), liveAbout, 'B does not see A\'s draft of About')
  const visitor = await get(DRAFT_ARTICLE)
  t.equal(visitor.status, 404, 'visitors see neither')
})

t.test('every upstream call of a preview render carries the token', async (t) => {
  const requestId = 'preview-render-1'
  const first = upstream.calls.length
  await get(`/?x-craft-preview=1&token=${NEW_ARTICLE}`, { 'x-request-id': requestId })
  const calls = upstream.calls.slice(first)
  t.ok(calls.length >= 3, `several calls (${calls.length})`)
  t.ok(calls.some((call) => call.operationName === 'LatestArticles'), 'including the streamed part')
  t.ok(calls.some((call) => call.operationName === 'Redirects'), 'including the redirect lookup')
  t.same(
    calls.filter((call) => call.token !== NEW_ARTICLE || call.requestId !== requestId).map((call) => call.operationName),
    [],
    'every call made during the render has the preview token and the request id',
  )
})

t.test('preview parameters or tokens that are no usable token: the live page from the caches, at no cost to the CMS', async (t) => {
  // [address, headers, what the answer must say about caching]
  const requests: [string, Record<string, string>, 'public' | 'cleared' | 'malformed'][] = [
    ['/kantoren?x-craft-preview=1', {}, 'public'],
    ['/kantoren?x-craft-live-preview=1', {}, 'public'],
    ['/kantoren?token=no-preview-marker', {}, 'public'],
    ['/kantoren?x-craft-preview=1&token=%3Cnot%20a%20token%3E', {}, 'malformed'],
    ['/kantoren', { 'x-craft-token': SITE_TOKEN }, 'public'],
    ['/kantoren', { 'x-craft-token': 'not.a.token' }, 'malformed'],
    ['/kantoren', { cookie: `craft_token=${SITE_TOKEN}` }, 'cleared'],
    ['/kantoren', { cookie: 'craft_token=%3Cnot%20a%20token%3E' }, 'malformed'],
    ['/kantoren/_payload.json?x-craft-preview=1', {}, 'public'],
    ['/kantoren/_payload.json?token=no-preview-marker', {}, 'public'],
    ['/kantoren/_payload.json', { cookie: `craft_token=${SITE_TOKEN}` }, 'cleared'],
    ['/kantoren/_payload.json', { cookie: 'craft_token=a+b' }, 'malformed'],
  ]
  await get('/kantoren')
  await get('/kantoren/_payload.json')
  const page = await get('/kantoren')
  t.equal(page.headers['x-cache'], 'HIT', 'the plain address is stored')
  const before = cacheSizes()
  const calls = upstream.calls.length
  for (const [path, headers, kind] of requests) {
    const label = `${path} ${JSON.stringify(headers)}`
    const answer = await get(path, headers)
    t.equal(answer.status, 200, label)
    t.equal(answer.headers['x-cache'], 'HIT', `${label}: from the cache`)
    if (!path.includes('_payload')) t.ok(answer.html === page.html, `${label}: the live page, as stored for /kantoren`)
    const cookie = String(answer.headers['set-cookie'] ?? '')
    if (kind === 'public') {
      t.match(answer.headers['cache-control'], /^public/, `${label}: public`)
      t.equal(cookie, '', `${label}: no cookie`)
    } else {
      if (headers.cookie) t.match(cookie, /^craft_token=;/, `${label}: the cookie that cannot be used is cleared`)
      t.match(answer.headers['cache-control'], /^private/, `${label}: so the answer is this browser's alone`)
      if (kind === 'malformed') t.equal(answer.headers['x-robots-tag'], 'noindex', `${label}: a malformed token is marked noindex like a preview`)
    }
  }
  t.equal(upstream.calls.length, calls, 'none of them asked the CMS')
  t.same(cacheSizes(), before, 'nor stored anything new: they share the entries of the plain address')
})

t.test('a token cookie the CMS refuses is dropped: the live page, not an error on every page', async (t) => {
  // Craft ignores a well-formed token it does not know; a CMS that refuses one (another CMS, an older Craft) answers 400 without GraphQL.
  const refused = 'expired-preview-token'
  upstream.behave = (call) =>
    call.token === refused
      ? { kind: 'answer', status: 400, body: JSON.stringify({ name: 'Bad Request', message: 'Invalid token', code: 0, status: 400 }) }
      : { kind: 'pass' }
  t.teardown(() => {
    upstream.behave = () => ({ kind: 'pass' })
  })
  const page = await get('/over-ons', { cookie: `craft_token=${refused}` })
  t.equal(page.status, 200)
  t.equal(h1Of(page.html), liveAbout)
  t.equal(page.headers['cache-control'], 'private, no-store', 'still private for this request')
  const cleared = String(page.headers['set-cookie'])
  t.match(cleared, /craft_token=;/, 'the cookie is cleared')
  t.match(cleared, /Expires=Thu, 01 Jan 1970|Max-Age=0/)

  const payload = await get('/over-ons/_payload.json', { cookie: `craft_token=${refused}` })
  t.equal(payload.status, 200, 'the browser\'s own payload requests too')
  t.match(String(payload.headers['set-cookie']), /craft_token=;/)
  t.match(payload.html, liveAbout)

  const fromQuery = await get(`/over-ons?x-craft-preview=1&token=${refused}`)
  t.equal(fromQuery.status, 502, 'a refused token from the preview link itself is still an error')
  t.notOk(fromQuery.headers['set-cookie'], 'and is not offered as a cookie')
})

t.test('tokens never reach a log line', async (t) => {
  const logs = JSON.stringify([...system.gatewayLogs.lines, ...system.rendererLogs.lines])
  t.ok(system.gatewayLogs.lines.length > 10, 'there are log lines')
  t.notMatch(logs, ABOUT_DRAFT)
  t.notMatch(logs, NEW_ARTICLE)
})
