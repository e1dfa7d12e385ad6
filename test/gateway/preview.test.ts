import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'
import { startFaultUpstream } from '../helpers/fault-upstream.ts'
import { h1Of } from '../helpers/html.ts'
import { startSystem } from '../helpers/system.ts'

const ABOUT_DRAFT = 'preview-token-about-draft'
const NEW_ARTICLE = 'preview-token-new-article'
const DRAFT_ARTICLE = '/topical/concept-nieuwsbericht-renteverandering'
const liveAbout = titleOf(shippedContent(), `${DEFAULT_SITE_HANDLE}About`)

const upstream = await startFaultUpstream()
const system = await startSystem({ CRAFT_API_URL: upstream.url })
t.teardown(async () => {
  await system.close()
  await upstream.close()
})

const get = async (path: string, headers: Record<string, string> = {}) => {
  const response = await request(`${system.url}${path}`, { headers })
  return { status: response.statusCode, headers: response.headers, html: await response.body.text() }
}

t.test('a preview shows the draft, privately, and offers the token as a cookie', async (t) => {
  await get('/over-ons')
  const preview = await get(`/over-ons?x-craft-preview=a1b2&token=${ABOUT_DRAFT}`)
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
  const payload = await get(`/over-ons/_payload.json?x-craft-preview=1&token=${ABOUT_DRAFT}`)
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
  await get(`/?x-craft-preview=1&token=${NEW_ARTICLE}`, { 'x-request-id': requestId })
  const calls = upstream.calls.filter((call) => call.requestId === requestId)
  t.ok(calls.length >= 3, `several calls (${calls.length})`)
  t.ok(calls.some((call) => call.operationName === 'LatestArticles'), 'including the streamed part')
  t.ok(calls.every((call) => call.token === NEW_ARTICLE), 'all with the preview token')
})

t.test('tokens never reach a log line', async (t) => {
  const logs = JSON.stringify([...system.gatewayLogs.lines, ...system.rendererLogs.lines])
  t.ok(system.gatewayLogs.lines.length > 10, 'there are log lines')
  t.notMatch(logs, ABOUT_DRAFT)
  t.notMatch(logs, NEW_ARTICLE)
})
