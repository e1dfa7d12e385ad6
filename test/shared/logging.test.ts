import t from 'tap'
import { LOGGED_URL_PREFIX, loggedRequest, redactUrl } from '../../shared/logging.ts'

// The address a log line shows, without a service: test/logging.test.ts sees the same through both services' logs.

const TOKEN = 'the-preview-token-never-logged'

t.test('every query parameter that reads as token is redacted, whatever the encoding of its name', async (t) => {
  t.equal(redactUrl('/over-ons'), '/over-ons', 'no query: as it is')
  t.equal(redactUrl('/over-ons?pagina=2&x'), '/over-ons?pagina=2&x', 'no token: as it is')
  t.equal(redactUrl(`/over-ons?token=${TOKEN}`), '/over-ons?token=[Redacted]')
  t.equal(redactUrl(`/over-ons?pagina=2&%74oken=${TOKEN}&x=1`), '/over-ons?pagina=2&%74oken=[Redacted]&x=1', 'encoded: only its value goes')
  t.equal(redactUrl(`/over-ons?tok+en=${TOKEN}`), `/over-ons?tok+en=${TOKEN}`, 'a name that reads otherwise stays')
  t.equal(redactUrl(`/over-ons?token=${TOKEN}&token=${TOKEN}`), '/over-ons?token=[Redacted]&token=[Redacted]', 'each of them')
  t.equal(redactUrl('/over-ons&token=abc'), '/over-ons&token=abc', 'no `?`: no query, nothing to redact')
  t.equal(redactUrl('/over-ons?tokens&token'), '/over-ons?tokens&token', 'a parameter without a value has none to redact')
})

t.test('a parameter whose name does not decode is redacted: another parser may read it as token', async (t) => {
  for (const name of ['%E0oken', 't%oken', '%', 'token%']) {
    const logged = redactUrl(`/over-ons?a=1&${name}=${TOKEN}`)
    t.equal(logged, `/over-ons?a=1&${name}=[Redacted]`, name)
    t.notMatch(logged, TOKEN, `${name}: the token is not in it`)
  }
})

t.test('an address over the prefix is cut, its length kept, and its tokens redacted all the same', async (t) => {
  const short = `/over-ons?token=${TOKEN}`
  t.same(loggedRequest({ method: 'GET', url: short }), { method: 'GET', url: '/over-ons?token=[Redacted]' }, 'a short one whole')
  const padding = 'a'.repeat(LOGGED_URL_PREFIX)
  const long = `/over-ons?token=${TOKEN}&p=${padding}`
  const logged = loggedRequest({ method: 'GET', url: long })
  t.equal(logged.urlLength, long.length)
  t.ok(logged.url.startsWith('/over-ons?token=[Redacted]&p=aaa'), logged.url)
  t.notMatch(logged.url, TOKEN, 'no token in a long address')
  t.ok(logged.url.length <= LOGGED_URL_PREFIX + '[Redacted]'.length, 'no more than the prefix is kept')
  // A token that runs past the prefix is cut short, and still all redacted.
  const cutToken = `/${'b'.repeat(LOGGED_URL_PREFIX - 20)}?x=1&token=${TOKEN}`
  const cut = loggedRequest({ method: 'GET', url: cutToken })
  t.equal(cut.url, `/${'b'.repeat(LOGGED_URL_PREFIX - 20)}?x=1&token=[Redacted]`)
  t.notMatch(cut.url, TOKEN.slice(0, 6), 'not even its start')
  // Exactly the prefix long: whole, no length.
  const exact = `/${'c'.repeat(LOGGED_URL_PREFIX - 1)}`
  t.same(loggedRequest({ method: 'HEAD', url: exact }), { method: 'HEAD', url: exact })
  // One over the prefix: cut, with its length.
  t.same(loggedRequest({ method: 'GET', url: `${exact}d` }), { method: 'GET', url: exact, urlLength: LOGGED_URL_PREFIX + 1 })
})
