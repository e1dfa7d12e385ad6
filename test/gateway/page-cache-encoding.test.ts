import type { IncomingMessage, ServerResponse } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { createPageCacheHits } from '../../gateway/cache/page-cache-hits.ts'
import { type CachedPage, MAX_ENCODES_IN_FLIGHT, MAX_ENCODES_QUEUED, PageCache, type PageCacheOptions, sizeOf } from '../../gateway/cache/page-cache.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createRouteTable } from '../../shared/routes.ts'

/**
 * The page cache stores a page at once, without variants, and makes a gzip
 * or brotli variant off the event loop once a client asks for that encoding
 * (`want`): what may happen to the entry in between (a hit, a purge, another
 * store) must never go wrong, and a page holds only the variants asked for.
 */

const HEADERS = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=0, s-maxage=30' }

function newCache(options: Partial<PageCacheOptions> = {}): PageCache {
  return new PageCache({ maxEntries: 1000, maxBytes: 64 * 1024 * 1024, ttlMs: 30_000, staleIfErrorMs: 60_000, ...options })
}

/** A page big enough to be encoded (over 1 KB), told apart by its name. */
function pageBody(name: string): Buffer {
  return Buffer.from(`<!DOCTYPE html><html><body>${`<p>${name}: verzekeringen voor ondernemers</p>`.repeat(100)}</body></html>`)
}

function store(cache: PageCache, key: string, body: Buffer, tags: readonly string[] = ['entry:1']): void {
  cache.store(cache.ticket(), key, 200, HEADERS, body, tags)
}

/** Asks for both variants of a stored page, as a client asking brotli and one asking gzip would. */
function wantBoth(cache: PageCache, key: string): void {
  const page = cache.peek(key)
  if (!page) return
  cache.want(key, page, 'gzip')
  cache.want(key, page, 'br')
}

t.test('store encodes nothing: each variant is made once a client asks for it, off the event loop, and decodes to the body', async (t) => {
  const cache = newCache()
  const body = pageBody('home')
  store(cache, '/', body)
  const stored = cache.get('/')
  t.ok(stored, 'stored at once')
  t.same(stored?.body, body)
  t.match(stored?.etag, /^W\//)
  t.same(stored?.headers, HEADERS)
  t.same(stored?.tags, ['entry:1'])
  t.equal(cache.encodesInFlight, 0, 'nothing encoded for a page nobody asked a variant of')
  await cache.idle()
  t.equal(cache.get('/')?.gzip, undefined, 'no gzip')
  t.equal(cache.get('/')?.brotli, undefined, 'no brotli')

  cache.want('/', stored as CachedPage, 'gzip')
  cache.want('/', stored as CachedPage, 'gzip')
  t.equal(cache.encodesInFlight, 1, 'gzip asked twice: encoded once')
  await cache.idle()
  const gzipped = cache.get('/')
  t.same(gunzipSync(gzipped?.gzip ?? Buffer.alloc(0)), body, 'gzip decodes to the body')
  t.equal(gzipped?.brotli, undefined, 'and no brotli, which nobody asked for')
  t.equal(gzipped?.etag, stored?.etag, 'the same ETag')
  t.equal(gzipped?.freshUntil, stored?.freshUntil, 'fresh as long as when stored')

  cache.want('/', gzipped as CachedPage, 'br')
  await cache.idle()
  const both = cache.get('/')
  t.same(brotliDecompressSync(both?.brotli ?? Buffer.alloc(0)), body, 'brotli decodes to the body')
  t.same(both?.gzip, gzipped?.gzip, 'the gzip kept')
})

t.test('a page under 1 KB is never encoded', async (t) => {
  const cache = newCache()
  store(cache, '/klein', Buffer.from('<p>klein</p>'))
  wantBoth(cache, '/klein')
  t.equal(cache.encodesInFlight, 0)
  await cache.idle()
  t.equal(cache.get('/klein')?.gzip, undefined)
})

t.test('a purge between the ask and the end of its encode: the late encode does not bring the page back', async (t) => {
  for (const [how, purge] of [
    ['purge(tags) of its tag', (cache: PageCache) => cache.purge(['entry:1'])],
    ['purge() of everything', (cache: PageCache) => cache.purge()],
    ['clear()', (cache: PageCache) => cache.clear()],
  ] as const) {
    const cache = newCache()
    store(cache, '/over-ons', pageBody('over ons'))
    wantBoth(cache, '/over-ons')
    t.ok(cache.encodesInFlight > 0, `${how}: encoding`)
    purge(cache)
    t.equal(cache.get('/over-ons'), undefined, `${how}: gone at once`)
    await cache.idle()
    t.equal(cache.stale('/over-ons'), undefined, `${how}: still gone once the encode is done`)
    t.equal(cache.size, 0, `${how}: nothing in the cache`)
    t.equal(cache.bytes, 0, `${how}: no bytes counted`)
  }
})

t.test('a soft purge meanwhile keeps the page and its body: the variant made of that body is attached', async (t) => {
  const cache = newCache()
  store(cache, '/kantoren', pageBody('kantoren'), ['entry:2'])
  wantBoth(cache, '/kantoren')
  t.equal(cache.purge(['entry:2'], true), 1, 'marked stale')
  await cache.idle()
  const page = cache.peek('/kantoren')
  t.ok(page?.purged, 'still marked')
  t.ok(page?.brotli && page.gzip, 'with its variants')
})

t.test("a page replaced under the same key meanwhile: the old page's encode neither brings it back nor lends its bytes", async (t) => {
  const cache = newCache()
  store(cache, '/contact', pageBody('oud'))
  wantBoth(cache, '/contact')
  const small = Buffer.from('<p>nieuw</p>')
  store(cache, '/contact', small)
  await cache.idle()
  const page = cache.get('/contact')
  t.same(page?.body, small, 'the new page stays')
  t.equal(page?.gzip, undefined, "without the old page's gzip")
  t.equal(page?.brotli, undefined, "without the old page's brotli")

  const big = pageBody('nieuw')
  store(cache, '/werken-bij', pageBody('oud'))
  wantBoth(cache, '/werken-bij')
  store(cache, '/werken-bij', big)
  await cache.idle()
  t.equal(cache.get('/werken-bij')?.gzip, undefined, "the old page's variants are not the new one's")
  wantBoth(cache, '/werken-bij')
  await cache.idle()
  const replaced = cache.get('/werken-bij')
  t.same(replaced?.body, big)
  t.same(gunzipSync(replaced?.gzip ?? Buffer.alloc(0)), big, "the new page's own gzip")
  t.same(brotliDecompressSync(replaced?.brotli ?? Buffer.alloc(0)), big, 'and its own brotli')
})

t.test("encodes in flight are bounded; past the queue's bound a variant is not made, and may be asked again", async (t) => {
  const inFlight = 2
  const queued = 3
  const pages = 10
  const cache = newCache({ maxEncodesInFlight: inFlight, maxEncodesQueued: queued })
  for (let i = 0; i < pages; i++) {
    store(cache, `/pagina-${i}`, pageBody(`pagina ${i}`))
    cache.want(`/pagina-${i}`, cache.peek(`/pagina-${i}`) as CachedPage, 'br')
    t.ok(cache.encodesInFlight <= inFlight, `after ${i + 1} asks: ${cache.encodesInFlight} in flight`)
  }
  t.equal(cache.encodesInFlight, inFlight, 'the bound in flight')
  t.equal(cache.encodesQueued, queued, 'the bound queued')
  t.equal(cache.size, pages, 'every page stored at once all the same')

  let settled = false
  const idle = cache.idle().then(() => (settled = true))
  let mostInFlight = 0
  while (!settled) {
    mostInFlight = Math.max(mostInFlight, cache.encodesInFlight)
    await new Promise((resolve) => setImmediate(resolve))
  }
  await idle
  t.ok(mostInFlight <= inFlight, `never more than ${inFlight} in flight while draining (${mostInFlight})`)
  const encoded = Array.from({ length: pages }, (_, i) => cache.get(`/pagina-${i}`)?.brotli !== undefined)
  t.same(encoded, Array.from({ length: pages }, (_, i) => i < inFlight + queued), 'the first asked encoded, the rest served otherwise')
  cache.want('/pagina-9', cache.peek('/pagina-9') as CachedPage, 'br')
  await cache.idle()
  t.ok(cache.get('/pagina-9')?.brotli, 'a variant refused once is made when asked again')

  const defaults = newCache()
  for (let i = 0; i < MAX_ENCODES_IN_FLIGHT + MAX_ENCODES_QUEUED + 10; i++) {
    store(defaults, `/pagina-${i}`, pageBody(`pagina ${i}`))
    defaults.want(`/pagina-${i}`, defaults.peek(`/pagina-${i}`) as CachedPage, 'gzip')
  }
  t.equal(defaults.encodesInFlight, MAX_ENCODES_IN_FLIGHT, 'by default as well')
  t.equal(defaults.encodesQueued, MAX_ENCODES_QUEUED)
  await defaults.idle()
  t.equal(defaults.encodesInFlight, 0)
})

t.test('queued encodes of purged pages are dropped, and idle() settles', async (t) => {
  const cache = newCache({ maxEncodesInFlight: 1, maxEncodesQueued: 10 })
  for (let i = 0; i < 5; i++) {
    store(cache, `/pagina-${i}`, pageBody(`pagina ${i}`))
    cache.want(`/pagina-${i}`, cache.peek(`/pagina-${i}`) as CachedPage, 'br')
  }
  t.equal(cache.encodesQueued, 4)
  cache.clear()
  t.equal(cache.encodesQueued, 0, 'nothing left to encode')
  await cache.idle()
  t.equal(cache.encodesInFlight, 0)
})

t.test("the cache's byte count: the body, its strings and overhead, and each variant once attached, no more", async (t) => {
  const cache = newCache()
  const body = pageBody('bytes')
  const tags = ['entry:1', 'topical']
  store(cache, '/bytes', body, tags)
  const bare = cache.bytes
  const strings = '/bytes'.length + Object.entries(HEADERS).reduce((sum, [name, value]) => sum + name.length + value.length, 0) + tags.join('').length
  t.ok(bare > body.byteLength + strings, `the body, the key, headers and tags, and the entry's overhead (${bare})`)
  t.equal(bare, sizeOf(cache.peek('/bytes') as CachedPage, '/bytes'), 'as sizeOf counts it')
  cache.want('/bytes', cache.peek('/bytes') as CachedPage, 'gzip')
  await cache.idle()
  const gzipped = cache.get('/bytes')
  t.equal(cache.bytes, bare + (gzipped?.gzip?.byteLength ?? Number.NaN), 'and the gzip variant asked for')
  cache.want('/bytes', gzipped as CachedPage, 'br')
  await cache.idle()
  const both = cache.get('/bytes')
  t.equal(cache.bytes, bare + (both?.gzip?.byteLength ?? Number.NaN) + (both?.brotli?.byteLength ?? Number.NaN), 'and the brotli one once asked for too')
})

t.test('attaching a variant keeps the TTL the page was stored with', async (t) => {
  let now = 1_000_000
  const cache = newCache({ ttlMs: 1000, staleIfErrorMs: 0, now: () => now })
  store(cache, '/ttl', pageBody('ttl'))
  now += 600
  wantBoth(cache, '/ttl')
  await cache.idle()
  t.ok(cache.get('/ttl')?.brotli, 'variants attached 600 ms into its TTL')
  now += 401
  t.equal(cache.stale('/ttl'), undefined, 'gone 1,001 ms after it was stored, as without the variants')
})

/** A stand-in for what the fast path writes: status, header list and body. */
interface Answer {
  answered: boolean
  status: number
  headers: Record<string, string>
  body: Buffer | undefined
}

function hit(answer: ReturnType<typeof createPageCacheHits>, url: string, acceptEncoding: string): Answer {
  const request = { method: 'GET', url, headers: { 'accept-encoding': acceptEncoding } } as unknown as IncomingMessage
  const written: Answer = { answered: false, status: 0, headers: {}, body: undefined }
  const response = {
    writeHead(status: number, list: string[]) {
      written.status = status
      for (let i = 0; i < list.length; i += 2) written.headers[(list[i] as string).toLowerCase()] = list[i + 1] as string
      return response
    },
    end(body?: Buffer) {
      written.body = body
    },
  } as unknown as ServerResponse
  written.answered = answer(request, response)
  return written
}

t.test('a hit asking for an encoding the page does not hold: the full route answers it (compressing it as it goes out) while it is made; then the variant', async (t) => {
  const cache = newCache()
  const answer = createPageCacheHits({ pageCache: cache, routes: createRouteTable(DEFAULT_SITE_HANDLE), accepting: () => true, isHttps: () => false, strictTransportSecurity: '', onHit: () => {} })
  const body = pageBody('hit')
  store(cache, '/hit', body)

  const identityFirst = hit(answer, '/hit', 'identity')
  t.ok(identityFirst.answered, 'a client taking the body as it is: answered from the cache')
  t.same(identityFirst.body, body)
  t.equal(identityFirst.headers['content-length'], String(body.byteLength))
  t.equal(identityFirst.headers.vary, 'accept-encoding')
  t.equal(identityFirst.headers['x-cache'], 'HIT')
  t.equal(cache.encodesInFlight, 0, 'nothing encoded for it')

  const early = hit(answer, '/hit', 'gzip, deflate, br')
  t.notOk(early.answered, 'brotli not made yet: left to the full route')
  t.equal(cache.encodesInFlight, 1, 'and brotli is being made')
  await cache.idle()
  t.equal(cache.get('/hit')?.gzip, undefined, 'no gzip: nobody asked for it')
  const brotli = hit(answer, '/hit', 'gzip, deflate, br')
  t.ok(brotli.answered)
  t.equal(brotli.headers['content-encoding'], 'br')
  t.equal(brotli.headers['content-length'], String(brotli.body?.byteLength))
  t.same(brotliDecompressSync(brotli.body ?? Buffer.alloc(0)), body)
  t.equal(brotli.headers.etag, identityFirst.headers.etag, 'the same ETag for every encoding')
  t.equal(brotli.headers.vary, 'accept-encoding')

  const gzipOrBrotli = hit(answer, '/hit', 'gzip;q=1, br;q=0.5')
  t.ok(gzipOrBrotli.answered, 'gzip preferred but not made: the brotli it also takes, from the cache')
  t.equal(gzipOrBrotli.headers['content-encoding'], 'br')
  t.equal(cache.encodesInFlight, 1, 'while gzip is made')
  const onlyGzip = hit(answer, '/hit', 'gzip')
  t.notOk(onlyGzip.answered, 'a client taking gzip only: the full route, until it is made')
  await cache.idle()
  const gzip = hit(answer, '/hit', 'gzip')
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.equal(gzip.headers['content-length'], String(gzip.body?.byteLength))
  t.same(gunzipSync(gzip.body ?? Buffer.alloc(0)), body)
  const identity = hit(answer, '/hit', 'identity')
  t.equal(identity.headers['content-encoding'], undefined)
  t.equal(identity.headers['content-length'], String(body.byteLength))
})
