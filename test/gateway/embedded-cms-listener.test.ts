import { createClient } from 'graphql-ws'
import t from 'tap'
import { WebSocket, request } from 'undici'
import { EMBEDDED_CMS_PATH, LIVE_UPDATES_PATH } from '../../shared/constants.ts'
import { h1Of } from '../helpers/html.ts'
import { startSystem } from '../helpers/system.ts'

const PREVIEW_TOKEN = 'preview-token-about-draft'
const INTROSPECTION = JSON.stringify({ query: '{ __schema { types { name } } }' })

const system = await startSystem()
t.teardown(() => system.close())

const post = async (url: string, body: string) => {
  const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: response.statusCode, body: await response.body.text() }
}

t.test('the embedded content API is not on the public port; the gateway reaches it on a loopback listener of its own', async (t) => {
  const publicPost = await post(`${system.url}${EMBEDDED_CMS_PATH}`, INTROSPECTION)
  t.equal(publicPost.status, 404, 'POST /cms/api on the public port: 404')
  t.notMatch(publicPost.body, '__Schema', 'no schema')
  const publicGet = await request(`${system.url}${EMBEDDED_CMS_PATH}?query=${encodeURIComponent('{ __schema { types { name } } }')}`)
  t.equal(publicGet.statusCode, 404, 'GET /cms/api on the public port: 404')
  await publicGet.body.dump()

  const own = system.gateway.embeddedCmsUrl
  t.ok(own, 'the gateway tells its embedded API\'s address')
  t.equal(own?.hostname, '127.0.0.1', 'on loopback')
  t.not(own?.port, new URL(system.url).port, 'on a port of its own')
  t.equal(own?.pathname, EMBEDDED_CMS_PATH, 'at the path a Craft would have')
  const direct = await post(String(own), INTROSPECTION)
  t.equal(direct.status, 200, 'the listener answers')
  t.match(direct.body, '__Schema')

  const page = await request(`${system.url}/over-ons`)
  t.equal(page.statusCode, 200, 'pages still come from the embedded content')
  t.ok(h1Of(await page.body.text()), 'with their content')
})

t.test('/cms/live answers WebSocket upgrades only: plain GET and POST queries are 404', async (t) => {
  const postIntrospection = await post(`${system.url}${LIVE_UPDATES_PATH}`, INTROSPECTION)
  t.equal(postIntrospection.status, 404, 'POST introspection: 404')
  t.notMatch(postIntrospection.body, '__Schema')
  const postQuery = await post(`${system.url}${LIVE_UPDATES_PATH}`, JSON.stringify({ query: '{ ping }' }))
  t.equal(postQuery.status, 404, 'POST of any query: 404')
  const get = await request(`${system.url}${LIVE_UPDATES_PATH}?query=${encodeURIComponent('{ ping }')}`)
  t.equal(get.statusCode, 404, 'GET query: 404')
  t.notMatch(await get.body.text(), 'pong')
})

/** Opens a graphql-transport-ws connection as the editor's browser does: acknowledged, or closed. */
const connectLive = (token: string): Promise<{ acknowledged: boolean }> =>
  new Promise((resolve) => {
    const client = createClient({
      url: `${system.url.replace(/^http/, 'ws')}${LIVE_UPDATES_PATH}`,
      webSocketImpl: WebSocket,
      connectionParams: { token },
      lazy: false,
      retryAttempts: 0,
      onNonLazyError: () => undefined,
    })
    client.on('connected', () => {
      resolve({ acknowledged: true })
      void client.dispose()
    })
    client.on('closed', () => resolve({ acknowledged: false }))
  })

t.test('an editor\'s browser still connects to /cms/live with a valid preview token; without one it is refused', async (t) => {
  t.same(await connectLive(PREVIEW_TOKEN), { acknowledged: true }, 'the socket is acknowledged')
  t.equal((await connectLive('not-a-preview-token')).acknowledged, false, 'an unknown token: closed without acknowledgement')
})
