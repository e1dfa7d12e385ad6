import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { request } from 'undici'
import { startSystem } from '../helpers/system.ts'

const system = await startSystem({ TRUST_PROXY: '1' })
t.teardown(() => system.close())

const get = async (path: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => {
  const response = await request(`${system.url}${path}`, { headers, method })
  return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) }
}

const metric = async (): Promise<number> => {
  const text = await (await request(`${system.internalUrl}/metrics`)).body.text()
  return Number(/cache_lookups_total\{[^}]*cache="page"[^}]*result="HIT"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0)
}

t.test('a hit carries the same page and headers as the rendered answer, without compressing again', async (t) => {
  const first = await get('/over-ons')
  t.equal(first.headers['x-cache'], 'MISS')
  const hitsBefore = await metric()
  const hit = await get('/over-ons', { 'x-request-id': 'hit-request-0001' })
  t.equal(hit.status, 200)
  t.equal(hit.headers['x-cache'], 'HIT')
  t.equal(hit.body.toString('utf8'), first.body.toString('utf8').replace(/ nonce="[^"]*"/g, ''), 'the same page, less the nonces')
  t.equal(hit.headers['x-request-id'], 'hit-request-0001', 'the request id still comes through')
  for (const name of ['x-content-type-options', 'referrer-policy', 'cross-origin-opener-policy', 'content-type']) {
    t.equal(hit.headers[name], first.headers[name], `${name} as on the rendered page`)
  }
  t.match(hit.headers['content-security-policy'], /script-src 'self'/)
  t.notMatch(hit.headers['content-security-policy'], /nonce-/, 'no nonce: the page\'s inline scripts are allowed by hash')
  t.match(hit.headers['cache-control'], /public, .*s-maxage=/)
  t.match(hit.headers.etag, /^W\//)
  t.equal(hit.headers.vary, 'accept-encoding')
  t.equal(hit.headers['strict-transport-security'], undefined, 'no HSTS over plain HTTP')
  t.equal(await metric(), hitsBefore + 1, 'counted as a page-cache hit')

  // A variant is made off the event loop once a client asks for its encoding: that first request is compressed as it goes out.
  for (const acceptEncoding of ['br', 'gzip']) {
    const first = await get('/over-ons', { 'accept-encoding': acceptEncoding })
    t.equal(first.headers['content-encoding'], acceptEncoding, `the first hit asking ${acceptEncoding} gets it`)
    await system.gateway.pageCache.idle()
  }
  const stored = system.gateway.pageCache.peek('/over-ons')
  t.ok(stored?.brotli && stored.gzip, 'then the page holds both variants')
  const brotli = await get('/over-ons', { 'accept-encoding': 'gzip, deflate, br' })
  t.equal(brotli.headers['content-encoding'], 'br')
  t.equal(brotliDecompressSync(brotli.body).toString('utf8'), hit.body.toString('utf8'))
  t.equal(Number(brotli.headers['content-length']), brotli.body.byteLength)
  const gzip = await get('/over-ons', { 'accept-encoding': 'gzip' })
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.equal(gunzipSync(gzip.body).toString('utf8'), hit.body.toString('utf8'))

  const revalidated = await get('/over-ons', { 'if-none-match': hit.headers.etag as string })
  t.equal(revalidated.status, 304)
  t.equal(revalidated.body.byteLength, 0)
  const head = await get('/over-ons', {}, 'HEAD')
  t.equal(head.status, 200)
  t.equal(head.body.byteLength, 0)
  t.equal(Number(head.headers['content-length']), hit.body.byteLength)

  const secure = await get('/over-ons', { 'x-forwarded-proto': 'https' })
  t.equal(secure.headers['x-cache'], 'HIT')
  t.match(secure.headers['strict-transport-security'], /max-age=\d+/, 'HSTS behind a trusted TLS proxy')
})

t.test('anything that may be a preview never comes from the page cache', async (t) => {
  await get('/kantoren')
  t.equal((await get('/kantoren')).headers['x-cache'], 'HIT')
  const sizeBefore = system.gateway.pageCache.size
  for (const [query, headers] of [
    ['?x-craft-preview=abc&token=t1', {}],
    ['', { 'x-craft-token': 't1' }],
    ['', { cookie: 'craft_token=t1' }],
  ] as [string, Record<string, string>][]) {
    const answer = await get(`/kantoren${query}`, headers)
    t.not(answer.headers['x-cache'], 'HIT', `${query || JSON.stringify(headers)}: not a hit`)
  }
  t.equal(system.gateway.pageCache.size, sizeBefore, 'and nothing was stored for them')
})

t.test('a token parameter without a preview marker is no preview: the stored live page', async (t) => {
  await get('/kantoren')
  const answer = await get('/kantoren?token=t1')
  t.equal(answer.headers['x-cache'], 'HIT', 'from the entry of /kantoren')
  t.match(answer.headers['cache-control'], /^public/)
})

t.test('a purge is seen by the next request', async (t) => {
  await get('/contact')
  t.equal((await get('/contact')).headers['x-cache'], 'HIT')
  system.gateway.pageCache.clear()
  t.equal((await get('/contact')).headers['x-cache'], 'MISS')
})
