import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { type Server, createServer } from 'node:http'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION } from '../../shared/render-protocol/index.ts'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { buildGateway } from '../../gateway/app.ts'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { DEV_RELOAD_PATH, RENDERER_BUILD_HEADER } from '../../shared/constants.ts'
import { eventData } from '../helpers/event-stream.ts'

t.test('npm run dev: a page is told to reload only once the gateway has the restarted renderer in turn again', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'dev-reload-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  const file = join(folder, 'dev-generation')
  writeFileSync(file, 'first')
  // The renderer's stand-in: /healthz fails while it "restarts".
  const health = { ok: false }
  const renderer: Server = createServer((_req, res) => res.writeHead(health.ok ? 200 : 503, { [RENDERER_BUILD_HEADER]: 'test-build', [RENDER_PROTOCOL_HEADER]: RENDER_PROTOCOL_VERSION }).end(`{"status":"ok","protocol":"${RENDER_PROTOCOL_VERSION}"}`))
  await new Promise<void>((resolve) => renderer.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => renderer.close(resolve)))
  const dev = await buildGateway(
    loadGatewayConfig({ LOG_LEVEL: 'silent', DEV_RELOAD_FILE: file, RENDERER_URL: `http://127.0.0.1:${(renderer.address() as AddressInfo).port}`, RENDERER_PROBE_INTERVAL_MS: '60000' }),
  )
  t.teardown(() => dev.close())
  // Each failed check doubles the wait before the next probe: after these, no probe comes during the test by itself.
  for (let i = 0; i < 10; i++) t.equal(await dev.renderers.healthy(), false)
  t.equal(dev.renderers.list()[0]?.up, false, 'the renderer is skipped while it restarts')

  const origin = await dev.listen({ host: '127.0.0.1', port: 0 })
  const response = await request(`${origin}${DEV_RELOAD_PATH}`)
  t.teardown(() => response.body.destroy())
  const events = eventData(response.body)
  t.equal(await events.next(), 'first')
  // scripts/dev.mjs writes the generation once the restarted renderer answers /healthz.
  health.ok = true
  writeFileSync(file, 'second')
  t.equal(await events.next(), 'second', 'the reload')
  t.equal(dev.renderers.list()[0]?.up, true, 'told only once the renderer is in turn: the reloaded page is rendered, not a 503')
})
