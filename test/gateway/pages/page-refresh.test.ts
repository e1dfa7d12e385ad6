import t from 'tap'
import { request } from 'undici'
import { CSP_NONCE_HEADER } from '../../../shared/constants.ts'
import { h1Of } from '../../helpers/html.ts'
import { startSystem } from '../../helpers/system.ts'

/**
 * The refresh stage (gateway/pages/page-refresh.ts): a page marked stale is
 * served at once and rendered again in the background by a direct call of
 * the render and store stages, never by a request of the gateway to itself.
 */
t.test('a soft-purged page is served stale, then refreshed in the background without a request to the gateway itself', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const { gateway } = system
  const get = async (path: string) => {
    const response = await request(`${system.url}${path}`)
    return { status: response.statusCode, headers: response.headers, body: await response.body.text() }
  }
  const first = await get('/kantoren')
  t.equal(first.headers['x-cache'], 'MISS')
  const before = gateway.pageCache.peek('/kantoren')
  if (!before) throw new Error('the page was not stored')

  let selfRequests = 0
  const inject = gateway.inject.bind(gateway)
  gateway.inject = ((...args: Parameters<typeof inject>) => {
    selfRequests++
    return inject(...args)
  }) as typeof gateway.inject
  t.teardown(() => {
    gateway.inject = inject
  })

  t.equal(gateway.pageCache.purge(undefined, true), 1, 'the soft purge marks the page')
  const stale = await get('/kantoren')
  t.equal(stale.headers['x-cache'], 'STALE', 'the visitor gets the stored page at once')
  await gateway.pageRefreshes.idle()
  t.equal(selfRequests, 0, 'the refresh asked the gateway nothing')

  const after = gateway.pageCache.peek('/kantoren')
  t.ok(after && after !== before, 'the page was rendered and stored again')
  t.ok(after && !gateway.pageCache.isStale(after), 'fresh again')
  t.same(Object.keys(after?.headers ?? {}).sort(), Object.keys(before.headers).sort(), "stored with the headers a visitor's render stored, the security headers too")
  t.equal(after?.headers['x-content-type-options'], 'nosniff')
  t.same(after?.tags, before.tags, 'with the tags of its data')
  const fresh = await get('/kantoren')
  t.equal(fresh.headers['x-cache'], 'HIT')
  t.equal(h1Of(fresh.body), h1Of(first.body), 'the same page as the first render')
})

t.test('a refresh of a page that is gone drops the stored page instead of storing the 404', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const { gateway } = system
  const first = await request(`${system.url}/kantoren`)
  await first.body.dump()
  t.ok(gateway.pageCache.peek('/kantoren'), 'stored')
  // The renderer answers 404 for the page from now on, as for an entry deleted in the CMS.
  const render = gateway.renderers.render.bind(gateway.renderers)
  let rendered = 0
  gateway.renderers.render = async () => {
    rendered++
    return { statusCode: 404, headers: { [CSP_NONCE_HEADER]: 'n0nce', 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from('<h1>Niet gevonden</h1>'), trailers: {} }
  }
  t.teardown(() => {
    gateway.renderers.render = render
  })
  gateway.pageCache.purge(undefined, true)
  const stale = await request(`${system.url}/kantoren`)
  await stale.body.dump()
  t.equal(stale.headers['x-cache'], 'STALE')
  await gateway.pageRefreshes.idle()
  t.equal(rendered, 1, 'the refresh rendered the page')
  t.equal(gateway.pageCache.peek('/kantoren'), undefined, 'the page that is gone is no longer stored')
})
