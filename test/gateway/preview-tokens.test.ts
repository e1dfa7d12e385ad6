import t, { type Test } from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'
import { startFaultUpstream } from '../helpers/fault-upstream.ts'
import { h1Of } from '../helpers/html.ts'
import { type System, startSystem } from '../helpers/system.ts'

// What becomes of malformed, unknown and expired preview tokens, and when the craft_token cookie is set and cleared.
const ABOUT_DRAFT = 'preview-token-about-draft'
const NEW_ARTICLE = 'preview-token-new-article'
const SITE_TOKEN = 'site-default-token'
const DRAFT_ABOUT_H1 = 'Over Havenborg (concept)'
const DRAFT_ARTICLE_TITLE = 'Concept: premies 2027'
const liveAbout = titleOf(shippedContent(), `${DEFAULT_SITE_HANDLE}About`)
const liveOffices = titleOf(shippedContent(), `${DEFAULT_SITE_HANDLE}Establishments`)

const upstream = await startFaultUpstream()
const system = await startSystem({ CRAFT_API_URL: upstream.url, CRAFT_TOKEN: SITE_TOKEN })
t.teardown(async () => {
  await system.close()
  await upstream.close()
})

let requestCount = 0
const get = async (path: string, headers: Record<string, string> = {}, target: System = system) => {
  const requestId = `preview-tokens-${++requestCount}`
  const response = await request(`${target.url}${path}`, { headers: { 'x-request-id': requestId, ...headers } })
  const setCookie = response.headers['set-cookie']
  const cookies = (Array.isArray(setCookie) ? setCookie : setCookie === undefined ? [] : [setCookie]).filter((c) => c.startsWith('craft_token='))
  return { status: response.statusCode, headers: response.headers, html: await response.body.text(), cookies, requestId }
}

type Answer = Awaited<ReturnType<typeof get>>
const cleared = (answer: Answer): boolean =>
  answer.cookies.length === 1 && /^craft_token=;/.test(answer.cookies[0] ?? '') && /Max-Age=0|Expires=Thu, 01 Jan 1970/.test(answer.cookies[0] ?? '')
const offered = (answer: Answer, token: string): boolean => answer.cookies.length === 1 && (answer.cookies[0] ?? '').startsWith(`craft_token=${token};`)
const privateAndNoindex = (t: Test, answer: Answer): void => {
  t.equal(answer.headers['cache-control'], 'private, no-store', 'private')
  t.equal(answer.headers['x-robots-tag'], 'noindex', 'noindex')
}
const h1 = (answer: Answer): string | undefined => h1Of(answer.html)

t.test('a preview link with an unknown token: the live page, private and noindex, and no cookie', async (t) => {
  const page = await get('/over-ons?x-craft-preview=1&token=unknown-token')
  t.equal(page.status, 200, 'not an error page: Craft ignores a well-formed token it does not know')
  t.equal(h1(page), liveAbout)
  privateAndNoindex(t, page)
  t.same(page.cookies, [], 'no craft_token cookie is set')
  t.ok(
    upstream.calls.some((call) => call.requestId === page.requestId && call.token === 'unknown-token'),
    'the well-formed token did go to the CMS, which ignored it',
  )

  const live = await get('/over-ons?x-craft-live-preview=abc&token=unknown-token')
  t.equal(live.status, 200)
  t.same(live.cookies, [], 'nor with live preview')
})

t.test('a preview link with a draft token: the draft, and the token offered as the 7-day cookie', async (t) => {
  const page = await get(`/over-ons?x-craft-preview=1&token=${ABOUT_DRAFT}`)
  t.equal(page.status, 200)
  t.equal(h1(page), DRAFT_ABOUT_H1)
  privateAndNoindex(t, page)
  t.ok(offered(page, ABOUT_DRAFT), `the cookie is set: ${page.cookies.join(' | ')}`)
  const cookie = page.cookies[0] ?? ''
  t.match(cookie, 'Max-Age=604800')
  t.match(cookie, 'Path=/')
  t.match(cookie, 'Secure')
  t.match(cookie, 'HttpOnly')
  t.match(cookie, 'SameSite=None')
})

t.test('the draft of an entry shown only in the deferred part of a page still counts', async (t) => {
  const home = await get(`/?x-craft-preview=1&token=${NEW_ARTICLE}`)
  t.equal(home.status, 200)
  t.match(home.html, DRAFT_ARTICLE_TITLE, 'the unpublished article is in the latest news')
  t.ok(offered(home, NEW_ARTICLE), 'the cookie is offered: the page shows the draft')
  const withCookie = await get('/', { cookie: `craft_token=${NEW_ARTICLE}` })
  t.match(withCookie.html, DRAFT_ARTICLE_TITLE)
  t.same(withCookie.cookies, [], 'and a cookie with that token is kept there')
  const otherDraft = await get('/', { cookie: `craft_token=${ABOUT_DRAFT}` })
  t.equal(otherDraft.status, 200)
  t.ok(cleared(otherDraft), 'a token that shows nothing in either part: the cookie is cleared')
  const otherLink = await get(`/?x-craft-live-preview=1&token=${ABOUT_DRAFT}`)
  t.same(otherLink.cookies, [], 'and not offered from a preview link')
})

t.test('a preview link whose token shows nothing on the page clears a cookie the request carried', async (t) => {
  const page = await get(`/kantoren?x-craft-preview=1&token=${ABOUT_DRAFT}`, { cookie: `craft_token=${NEW_ARTICLE}` })
  t.equal(page.status, 200)
  t.equal(h1(page), liveOffices)
  t.ok(cleared(page), `the cookie is cleared: ${page.cookies.join(' | ')}`)
})

t.test('the token cookie is kept where it shows a draft and cleared where it shows nothing', async (t) => {
  const about = await get('/over-ons', { cookie: `craft_token=${ABOUT_DRAFT}` })
  t.equal(h1(about), DRAFT_ABOUT_H1)
  privateAndNoindex(t, about)
  t.same(about.cookies, [], 'kept on the page it changes')
  const aboutPayload = await get('/over-ons/_payload.json', { cookie: `craft_token=${ABOUT_DRAFT}` })
  t.match(aboutPayload.html, DRAFT_ABOUT_H1)
  t.same(aboutPayload.cookies, [], 'and on its payload')

  const offices = await get('/kantoren', { cookie: `craft_token=${ABOUT_DRAFT}` })
  t.equal(offices.status, 200)
  t.equal(h1(offices), liveOffices)
  privateAndNoindex(t, offices)
  t.ok(cleared(offices), `cleared on a page it does not change: ${offices.cookies.join(' | ')}`)
  const officesPayload = await get('/kantoren/_payload.json', { cookie: `craft_token=${ABOUT_DRAFT}` })
  t.equal(officesPayload.status, 200)
  t.ok(cleared(officesPayload), 'and on such a page\'s payload')
  const part = await get('/_payload.json?part=primary', { cookie: `craft_token=${NEW_ARTICLE}` })
  t.same(part.cookies, [], 'a part that leaves data to come does not tell: kept')
})

t.test('an unknown or expired token in the cookie: the live page with 200, and the cookie cleared', async (t) => {
  const page = await get('/over-ons', { cookie: 'craft_token=expired-token-from-last-week' })
  t.equal(page.status, 200)
  t.equal(h1(page), liveAbout)
  privateAndNoindex(t, page)
  t.ok(cleared(page), `cleared: ${page.cookies.join(' | ')}`)
  const payload = await get('/over-ons/_payload.json', { cookie: 'craft_token=expired-token-from-last-week' })
  t.equal(payload.status, 200)
  t.match(payload.html, liveAbout)
  t.ok(cleared(payload), 'the payload clears it too')
})

t.test('malformed tokens never reach the CMS: the live page from the caches, private, and the cookie cleared', async (t) => {
  const malformed = ['abc.def', 'a+b/c=', '<script>', 'tok~en', 'a'.repeat(513)]
  for (const token of malformed) {
    const encoded = encodeURIComponent(token)
    const label = token.length > 20 ? `${token.slice(0, 8)}… (${token.length} characters)` : token
    const cases: [string, string, Record<string, string>][] = [
      // A valid draft cookie alongside: the malformed token decides, and the cookie goes.
      ['query', `/over-ons?x-craft-preview=1&token=${encoded}`, { cookie: `craft_token=${ABOUT_DRAFT}` }],
      ['live preview query', `/over-ons?x-craft-live-preview=1&token=${encoded}`, { cookie: `craft_token=${ABOUT_DRAFT}` }],
      ['header', '/over-ons', { 'x-craft-token': token, cookie: `craft_token=${ABOUT_DRAFT}` }],
      ['cookie', '/over-ons', { cookie: `craft_token=${encoded}` }],
      ['cookie, payload', '/over-ons/_payload.json', { cookie: `craft_token=${encoded}` }],
      ['header, payload', '/over-ons/_payload.json', { 'x-craft-token': token, cookie: `craft_token=${ABOUT_DRAFT}` }],
    ]
    for (const [where, path, headers] of cases) {
      const answer = await get(path, headers)
      t.equal(answer.status, 200, `${label} in the ${where}: 200`)
      t.notMatch(answer.html, DRAFT_ABOUT_H1, `${label} in the ${where}: not the draft`)
      t.match(answer.html, liveAbout, `${label} in the ${where}: the live content`)
      privateAndNoindex(t, answer)
      t.ok(cleared(answer), `${label} in the ${where}: the cookie is cleared (${answer.cookies.join(' | ')})`)
      const calls = upstream.calls.filter((call) => call.requestId === answer.requestId)
      t.not(answer.headers['x-cache'], 'BYPASS', `${label} in the ${where}: from the caches, as the live content is`)
      t.same(
        calls.filter((call) => call.token !== SITE_TOKEN).map((call) => call.token),
        [],
        `${label} in the ${where}: every call carried the site's token, none the malformed one`,
      )
    }
  }
  const headerWins = await get('/over-ons', { 'x-craft-token': ABOUT_DRAFT, cookie: 'craft_token=abc.def' })
  t.equal(h1(headerWins), DRAFT_ABOUT_H1, 'a good token in the header is used, the malformed cookie is not')
  t.ok(cleared(headerWins), 'and that cookie, which could never be used, is cleared')
  t.same(
    upstream.calls.filter((call) => call.token !== undefined && malformed.includes(call.token)),
    [],
    'no call to the CMS ever carried a malformed token',
  )
})

