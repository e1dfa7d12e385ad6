import t from 'tap'
import { request } from 'undici'
import { startFaultUpstream } from './helpers/fault-upstream.ts'
import { startSystem } from './helpers/system.ts'

/**
 * The page cache stores exactly the bytes the visitor got. A send hook that
 * takes a macrotask (a logger flushing, a plugin awaiting I/O) must not let
 * the render stream run ahead of the response: the visitor would get only
 * the tail of the page while the cache stored the whole of it.
 */
const upstream = await startFaultUpstream()
const system = await startSystem({ CRAFT_API_URL: upstream.url }, undefined, {
  beforeRoutes: (app) => {
    app.addHook('onSend', async (_request, _reply, payload) => {
      await new Promise((resolve) => setImmediate(resolve))
      return payload
    })
  },
})
t.teardown(async () => {
  await system.close()
  await upstream.close()
})

/** Holds the home page's deferred "latest news" query until the test lets it go: the page is streamed, shell first. */
function holdLatestNews(): () => void {
  let release!: () => void
  const until = new Promise<void>((resolve) => (release = resolve))
  upstream.behave = (call) => (call.operationName === 'LatestArticles' ? { kind: 'hold', until } : { kind: 'pass' })
  return release
}

for (const [path, streamed] of [
  ['/', true],
  ['/', false],
  ['/kantoren', false],
] as const) {
  t.test(`${path} (${streamed ? 'streamed' : 'rendered whole'}): visitor and page cache both get the whole page behind a slow send hook`, async (t) => {
    system.gateway.pageCache.clear()
    system.gateway.cache.purge()
    const release = streamed ? holdLatestNews() : undefined
    if (!release) upstream.behave = () => ({ kind: 'pass' })
    const response = await request(`${system.url}${path}`)
    release?.()
    const visitor = await response.body.text()
    t.equal(response.statusCode, 200)
    t.equal(response.headers['x-cache'], 'MISS', 'rendered for this request')
    t.ok(visitor.startsWith('<!DOCTYPE html>'), `the visitor's page starts with the doctype: ${JSON.stringify(visitor.slice(0, 40))}`)
    t.ok(visitor.trimEnd().endsWith('</html>'), 'and ends with the document')
    const stored = await storedPage(path)
    t.ok(stored.startsWith('<!DOCTYPE html>'), `the stored page starts with the doctype: ${JSON.stringify(stored.slice(0, 40))}`)
    // The stored page differs only in its nonces (dropped for hashes): the same length give or take those.
    t.equal(stored.replace(/ nonce="[^"]*"/g, ''), visitor.replace(/ nonce="[^"]*"/g, ''), 'the stored page is the page the visitor got')
    const again = await request(`${system.url}${path}`)
    t.equal(again.headers['x-cache'], 'HIT')
    t.ok((await again.body.text()).startsWith('<!DOCTYPE html>'), 'the next visitor gets the whole page from the cache')
  })
}

/** The cached page of `path`, once the render that fills it has been stored (storing follows the response's end). */
async function storedPage(path: string): Promise<string> {
  const giveUpAt = Date.now() + 10_000
  while (Date.now() < giveUpAt) {
    const entry = system.gateway.pageCache.get(path)
    if (entry) return entry.body.toString('utf8')
    await new Promise((resolve) => setImmediate(resolve))
  }
  return '(nothing stored)'
}
