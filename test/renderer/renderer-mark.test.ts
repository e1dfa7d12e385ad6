import t from 'tap'
import { buildRenderer } from '../../renderer/server/app.ts'
import { loadRendererConfig } from '../../renderer/config.ts'
import { RENDERER_BUILD_HEADER } from '../../shared/constants.ts'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION, RENDER_REQUEST_CONTENT_TYPE } from '../../shared/render-protocol/index.ts'

// Every answer a renderer sends says its build: the gateway takes a render, a probe's pass or a bundle file only
// from an answer that does (gateway/renderers/renderer-pool.ts), never from whatever else answers at the address.

t.test('every answer of the renderer carries its build, its error answers too', async (t) => {
  // No gateway behind it: the answers below need none.
  const renderer = await buildRenderer(loadRendererConfig({ GATEWAY_URL: 'http://127.0.0.1:9', RENDER_SECRET: 'een-geheim-van-32-tekens-of-meer!!', LOG_LEVEL: 'silent' }))
  t.teardown(() => renderer.close())
  const health = await renderer.inject({ method: 'GET', url: '/healthz' })
  const build = (health.json() as { build: string }).build
  t.ok(build, 'its build, as its health check says')
  const answers = {
    'health check': health,
    metrics: await renderer.inject({ method: 'GET', url: '/metrics' }),
    'a render of another protocol (503)': await renderer.inject({ method: 'GET', url: '/over-ons' }),
    'an unsigned render (403)': await renderer.inject({ method: 'POST', url: '/over-ons', headers: { 'content-type': RENDER_REQUEST_CONTENT_TYPE, [RENDER_PROTOCOL_HEADER]: RENDER_PROTOCOL_VERSION }, payload: '{}\n[]' }),
    'a bundle file it lacks (404)': await renderer.inject({ method: 'GET', url: '/assets/app-onbekend.js' }),
  }
  for (const [name, answer] of Object.entries(answers)) {
    t.equal(answer.headers[RENDERER_BUILD_HEADER], build, name)
    t.equal(answer.headers[RENDER_PROTOCOL_HEADER], RENDER_PROTOCOL_VERSION, `${name}: and its render protocol`)
  }
  t.equal((health.json() as { protocol: string }).protocol, RENDER_PROTOCOL_VERSION, 'its health check says its render protocol')
  t.equal(answers['an unsigned render (403)'].statusCode, 403)
  t.equal(answers['a render of another protocol (503)'].statusCode, 503)
})
