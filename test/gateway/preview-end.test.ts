import t from 'tap'
import { request } from 'undici'
import { PREVIEW_END_PATH } from '../../shared/constants.ts'
import { startSystem } from '../helpers/system.ts'

// The preview bar's "Voorbeeld sluiten": a POST from a page of this site clears
// the token cookie and the stored token, and goes back to the live page.
const SITE = 'https://www.havenborg.example'
const system = await startSystem({ SITE_URL: SITE })
t.teardown(() => system.close())

const end = async (returnTo: string | undefined, headers: Record<string, string>) => {
  const query = returnTo === undefined ? '' : `?terug=${encodeURIComponent(returnTo)}`
  const response = await request(`${system.url}${PREVIEW_END_PATH}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'craft_token=preview-token-about-draft', ...headers },
    body: '',
  })
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() }
}

t.test('from a page of the site: the cookie and the stored token go, and the browser goes to the live page', async (t) => {
  const ended = await end('/actueel?x-craft-preview=a1b2&token=preview-token-about-draft&pagina=2', { origin: SITE, 'sec-fetch-site': 'same-origin' })
  t.equal(ended.status, 303)
  t.equal(ended.headers.location, '/actueel?pagina=2', 'the same address without the preview link')
  const cookie = String(ended.headers['set-cookie'])
  t.match(cookie, /^craft_token=;/, 'the token cookie is emptied')
  t.match(cookie, /Expires=Thu, 01 Jan 1970|Max-Age=0/, 'and expired')
  t.match(cookie, /Path=\//)
  t.equal(ended.headers['clear-site-data'], '"storage"', 'the token kept in local storage goes too')
  t.equal(ended.headers['cache-control'], 'private, no-store')
  const byOrigin = await end('/kantoren', { origin: SITE })
  t.equal(byOrigin.status, 303, 'a browser that sends only Origin (no Sec-Fetch-Site) is believed by it')
  t.equal(byOrigin.headers.location, '/kantoren')
})

t.test('from anywhere else, or from nowhere said, nothing changes', async (t) => {
  for (const [label, headers] of [
    ['another site (Sec-Fetch-Site)', { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }],
    ['another site (Origin only)', { origin: 'https://evil.example' }],
    ['no Origin at all', {}],
    ['a same-site subdomain', { 'sec-fetch-site': 'same-site', origin: 'https://cms.havenborg.example' }],
  ] as const) {
    const refused = await end('/over-ons', headers)
    t.equal(refused.status, 403, label)
    t.equal(refused.headers['set-cookie'], undefined, `${label}: no cookie touched`)
    t.equal(refused.headers['clear-site-data'], undefined, `${label}: no storage cleared`)
    t.match(JSON.parse(refused.body), { errors: [{ extensions: { code: 'CROSS_ORIGIN_REFUSED' } }] })
  }
})

t.test("the way back is the page the button was on: the browser's Referer of this site before the form's own address", async (t) => {
  // After client-side navigations the bar still holds the address of the page it was rendered with; the Referer is the page shown now.
  const navigated = await end('/over-ons', { 'sec-fetch-site': 'same-origin', referer: `${SITE}/kantoren?x-craft-preview=1&token=preview-token-about-draft` })
  t.equal(navigated.headers.location, '/kantoren', 'the Referer, without the preview link')
  const elsewhere = await end('/over-ons', { 'sec-fetch-site': 'same-origin', referer: 'https://evil.example/kantoren' })
  t.equal(elsewhere.headers.location, '/over-ons', "another origin's Referer is not read: the form's address")
  const junk = await end('/over-ons', { 'sec-fetch-site': 'same-origin', referer: 'not a url' })
  t.equal(junk.headers.location, '/over-ons')
})

t.test('the way back is a page of this site, never another origin', async (t) => {
  // `/%2Fevil.example` decodes to `//evil.example`: what is sent is checked, not what came in.
  for (const returnTo of ['//evil.example/x', 'https://evil.example/', '/\\evil.example', 'over-ons', undefined, '/%2Fevil.example', '/%2F%2Fevil.example', '/%5Cevil.example']) {
    const ended = await end(returnTo, { 'sec-fetch-site': 'same-origin' })
    t.equal(ended.status, 303)
    t.equal(ended.headers.location, '/', `${String(returnTo)} -> the home page`)
  }
})
