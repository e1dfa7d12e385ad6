import { createGunzip } from 'node:zlib'
import t from 'tap'
import { request } from 'undici'
import { startFaultUpstream } from './helpers/fault-upstream.ts'
import { startSystem } from './helpers/system.ts'

const upstream = await startFaultUpstream()
const system = await startSystem({ CRAFT_API_URL: upstream.url })
t.teardown(async () => {
  await system.close()
  await upstream.close()
})

function purgeAll(): void {
  system.gateway.cache.purge()
  system.gateway.pageCache.clear()
}

/** Holds the home page's deferred "latest news" query until the test lets it go. */
function holdLatestNews(): { release: () => void; released: () => boolean } {
  let release!: () => void
  let released = false
  const until = new Promise<void>((resolve) => {
    release = () => {
      released = true
      resolve()
    }
  })
  upstream.behave = (call) => (call.operationName === 'LatestArticles' ? { kind: 'hold', until } : { kind: 'pass' })
  return { release, released: () => released }
}

t.test('the shell reaches the visitor before the slow part of the page exists', async (t) => {
  purgeAll()
  const hold = holdLatestNews()
  const response = await request(`${system.url}/`)
  t.equal(response.statusCode, 200)
  const iterator = response.body[Symbol.asyncIterator]()
  let received = ''
  while (!received.includes('</h1>')) {
    const { value, done } = await iterator.next()
    if (done) break
    received += (value as Buffer).toString('utf8')
  }
  t.notOk(hold.released(), 'the slow query is still held upstream')
  t.ok(received.startsWith('<!DOCTYPE html>'), 'the page starts at its beginning: nothing of the stream ran ahead of the response')
  t.match(received, /<h1[^>]*>/, 'the heading has arrived')
  t.notMatch(received, /data-loaded="true"/, 'the latest news has not')
  for (let i = 0; i < 100 && !upstream.calls.some((call) => call.operationName === 'LatestArticles'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.ok(upstream.calls.some((call) => call.operationName === 'LatestArticles'), 'the slow query is held upstream')

  hold.release()
  for (;;) {
    const { value, done } = await iterator.next()
    if (done) break
    received += (value as Buffer).toString('utf8')
  }
  t.match(received, /data-loaded="true"/, 'the latest news streamed in afterwards')
  t.match(received, /href="\/actueel\/[a-z0-9-]+"/, 'with links to articles at their Dutch addresses')
  t.match(received, /<\/html>$/, 'and the document completes')
})

t.test('crawlers get the complete page before the first byte', async (t) => {
  purgeAll()
  const hold = holdLatestNews()
  setTimeout(hold.release, 300)
  const response = await request(`${system.url}/`, { headers: { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1)' } })
  t.ok(hold.released(), 'no byte before the slow part was done')
  const html = await response.body.text()
  t.equal(response.statusCode, 200)
  t.match(html, /data-loaded="true"/)
})

t.test('compressed, the page still streams: each part is flushed as it is written', async (t) => {
  purgeAll()
  const hold = holdLatestNews()
  const response = await request(`${system.url}/`, { headers: { 'accept-encoding': 'gzip' } })
  t.equal(response.headers['content-encoding'], 'gzip')
  const gunzip = createGunzip()
  let text = ''
  gunzip.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
  const iterator = response.body[Symbol.asyncIterator]()
  while (!text.includes('</h1>')) {
    const { value, done } = await iterator.next()
    if (done) break
    gunzip.write(value as Buffer)
    await new Promise((resolve) => setImmediate(resolve))
  }
  t.match(text, /<h1[^>]*>/, 'the heading arrived, decompressed, while the slow part is held')
  t.notOk(hold.released())
  hold.release()
  for (;;) {
    const { value, done } = await iterator.next()
    if (done) break
    gunzip.write(value as Buffer)
  }
  await new Promise((resolve) => gunzip.end(resolve))
  t.match(text, /data-loaded="true"/)
})
