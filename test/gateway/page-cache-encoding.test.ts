import type { IncomingMessage, ServerResponse } from 'node:http'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { createPageCacheHits } from '../../gateway/cache/page-cache-hits.ts'
import { MAX_ENCODES_IN_FLIGHT, MAX_ENCODES_QUEUED, PageCache, type PageCacheOptions } from '../../gateway/cache/page-cache.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createRouteTable } from '../../shared/routes.ts'

/**
 * The page cache stores a page at once and makes its gzip and brotli variants
 * off the event loop afterwards: what may happen to the entry in between
 * (a hit, a purge, another store) must never go wrong.
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

t.test('store returns before the encodes: the page is there at once, its variants follow and decode to it', async (t) => {
  const cache = newCache()
  const body = pageBody('home')
  store(cache, '/', body)
  const stored = cache.get('/')
  t.ok(stored, 'stored at once')
  t.same(stored?.body, body)
  t.match(stored?.etag, /^W\//)
  t.same(stored?.headers, HEADERS)
  t.same(stored?.tags, ['entry:1'])
  t.equal(stored?.gzip, undefined, 'no gzip yet')
  t.equal(stored?.brotli, undefined, 'no brotli yet')
  t.equal(cache.encodesInFlight, 1, 'its encode is under way')

  await cache.idle()
  const encoded = cache.get('/')
  t.equal(cache.encodesInFlight, 0)
  t.ok(encoded?.gzip && encoded.brotli, 'both variants attached')
  t.same(gunzipSync(encoded?.gzip ?? Buffer.alloc(0)), body, 'gzip decodes to the body')
  t.same(brotliDecompressSync(encoded?.brotli ?? Buffer.alloc(0)), body, 'brotli decodes to the body')
  t.equal(encoded?.etag, stored?.etag, 'the same ETag')
  t.equal(encoded?.freshUntil, stored?.freshUntil, 'fresh as long as when stored')
})

t.test('a page under 1 KB is stored without variants and nothing is encoded', async (t) => {
  const cache = newCache()
  store(cache, '/klein', Buffer.from('<p>klein</p>'))
  t.equal(cache.encodesInFlight, 0)
  await cache.idle()
  t.equal(cache.get('/klein')?.gzip, undefined)
})

t.test('a purge between the store and the end of its encode: the late encode does not bring the page back', async (t) => {
  for (const [how, purge] of [
    ['purge(tags) of its tag', (cache: PageCache) => cache.purge(['entry:1'])],
    ['purge() of everything', (cache: PageCache) => cache.purge()],
    ['clear()', (cache: PageCache) => cache.clear()],
  ] as const) {
    const cache = newCache()
    store(cache, '/over-ons', pageBody('over ons'))
    t.equal(cache.encodesInFlight, 1, `${how}: encoding`)
    purge(cache)
    t.equal(cache.get('/over-ons'), undefined, `${how}: gone at once`)
    await cache.idle()
    t.equal(cache.stale('/over-ons'), undefined, `${how}: still gone once the encode is done`)
    t.equal(cache.size, 0, `${how}: nothing in the cache`)
    t.equal(cache.bytes, 0, `${how}: no bytes counted`)
  }
})

t.test('a purge of other pages meanwhile: the page stays, but what its encode made before the purge is not attached', async (t) => {
  const cache = newCache()
  store(cache, '/kantoren', pageBody('kantoren'), ['entry:2'])
  cache.purge(['entry:3'])
  await cache.idle()
  const page = cache.get('/kantoren')
  t.ok(page, 'not purged')
  t.equal(page?.brotli, undefined, 'no variants from before the purge')
})

t.test('a page replaced under the same key meanwhile: the old page\'s encode neither brings it back nor lends its bytes', async (t) => {
  const cache = newCache()
  store(cache, '/contact', pageBody('oud'))
  const small = Buffer.from('<p>nieuw</p>')
  store(cache, '/contact', small)
  await cache.idle()
  const page = cache.get('/contact')
  t.same(page?.body, small, 'the new page stays')
  t.equal(page?.gzip, undefined, 'without the old page\'s gzip')
  t.equal(page?.brotli, undefined, 'without the old page\'s brotli')

  const big = pageBody('nieuw')
  store(cache, '/werken-bij', pageBody('oud'))
  store(cache, '/werken-bij', big)
  await cache.idle()
  const replaced = cache.get('/werken-bij')
  t.same(replaced?.body, big)
  t.same(gunzipSync(replaced?.gzip ?? Buffer.alloc(0)), big, 'the new page\'s own gzip')
  t.same(brotliDecompressSync(replaced?.brotli ?? Buffer.alloc(0)), big, 'and its own brotli')
})

t.test('encodes in flight are bounded; past the queue\'s bound a page is stored without variants', async (t) => {
  const inFlight = 2
  const queued = 3
  const pages = 10
  const cache = newCache({ maxEncodesInFlight: inFlight, maxEncodesQueued: queued })
  for (let i = 0; i < pages; i++) {
    store(cache, `/pagina-${i}`, pageBody(`pagina ${i}`))
    t.ok(cache.encodesInFlight <= inFlight, `after ${i + 1} stores: ${cache.encodesInFlight} in flight`)
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
  t.same(encoded, Array.from({ length: pages }, (_, i) => i < inFlight + queued), 'the first pages encoded, the rest served as they are')

  const defaults = newCache()
  for (let i = 0; i < MAX_ENCODES_IN_FLIGHT + MAX_ENCODES_QUEUED + 10; i++) store(defaults, `/pagina-${i}`, pageBody(`pagina ${i}`))
  t.equal(defaults.encodesInFlight, MAX_ENCODES_IN_FLIGHT, 'by default as well')
  t.equal(defaults.encodesQueued, MAX_ENCODES_QUEUED)
  await defaults.idle()
  t.equal(defaults.encodesInFlight, 0)
})

t.test('queued encodes of purged pages are dropped, and idle() settles', async (t) => {
  const cache = newCache({ maxEncodesInFlight: 1, maxEncodesQueued: 10 })
  for (let i = 0; i < 5; i++) store(cache, `/pagina-${i}`, pageBody(`pagina ${i}`))
  t.equal(cache.encodesQueued, 4)
  cache.clear()
  t.equal(cache.encodesQueued, 0, 'nothing left to encode')
  await cache.idle()
  t.equal(cache.encodesInFlight, 0)
})

t.test('the cache\'s byte count takes in the variants once attached', async (t) => {
  const cache = newCache()
  const body = pageBody('bytes')
  store(cache, '/bytes', body)
  const bare = cache.bytes
  t.ok(bare > body.byteLength, `the body and the entry's overhead (${bare})`)
  await cache.idle()
  const page = cache.get('/bytes')
  const variants = (page?.gzip?.byteLength ?? 0) + (page?.brotli?.byteLength ?? 0)
  t.ok(variants > 0)
  t.equal(cache.bytes, bare + variants, 'body, overhead and both variants')
})

t.test('attaching the variants keeps the TTL the page was stored with', async (t) => {
  let now = 1_000_000
  const cache = newCache({ ttlMs: 1000, staleIfErrorMs: 0, now: () => now })
  store(cache, '/ttl', pageBody('ttl'))
  now += 600
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

t.test('a hit before the variants are made gets the body as it is; after, the encoding it asked for', async (t) => {
  const cache = newCache()
  const answer = createPageCacheHits({ pageCache: cache, routes: createRouteTable(DEFAULT_SITE_HANDLE), accepting: () => true, isHttps: () => false, strictTransportSecurity: '', onHit: () => {} })
  const body = pageBody('hit')
  store(cache, '/hit', body)

  const early = hit(answer, '/hit', 'gzip, deflate, br')
  t.ok(early.answered, 'answered from the cache')
  t.equal(early.status, 200)
  t.equal(early.headers['content-encoding'], undefined, 'not encoded')
  t.same(early.body, body, 'the body as stored')
  t.equal(early.headers['content-length'], String(body.byteLength))
  t.equal(early.headers.vary, 'accept-encoding')
  t.equal(early.headers['x-cache'], 'HIT')
  t.equal(cache.encodesInFlight, 1, 'answered without waiting for the encode')

  await cache.idle()
  const brotli = hit(answer, '/hit', 'gzip, deflate, br')
  t.equal(brotli.headers['content-encoding'], 'br')
  t.equal(brotli.headers['content-length'], String(brotli.body?.byteLength))
  t.same(brotliDecompressSync(brotli.body ?? Buffer.alloc(0)), body)
  t.equal(brotli.headers.etag, early.headers.etag, 'the same ETag for every encoding')
  t.equal(brotli.headers.vary, 'accept-encoding')
  const gzip = hit(answer, '/hit', 'gzip')
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.equal(gzip.headers['content-length'], String(gzip.body?.byteLength))
  t.same(gunzipSync(gzip.body ?? Buffer.alloc(0)), body)
  const identity = hit(answer, '/hit', 'identity')
  t.equal(identity.headers['content-encoding'], undefined)
  t.equal(identity.headers['content-length'], String(body.byteLength))
})
