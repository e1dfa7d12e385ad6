import t from 'tap'
import { Agent, request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../shared/constants.ts'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION, RENDER_REQUEST_CONTENT_TYPE } from '../shared/render-protocol/index.ts'
import { shippedContent, titleOf } from './helpers/content.ts'
import { h1Of } from './helpers/html.ts'
import { freePort, retryOnAddressInUse } from './helpers/ports.ts'
import { listening, startProcess } from './helpers/processes.ts'
import { startSystem } from './helpers/system.ts'

const store = shippedContent()

t.test('the renderer needs nothing but GATEWAY_URL', async (t) => {
  // The renderer on a port of the kernel's choosing; the gateway's, named to it first, again on another if it was taken meanwhile.
  const system = await retryOnAddressInUse(async () => {
    const gatewayPort = await freePort()
    const renderer = startProcess('dist/renderer.js', { GATEWAY_URL: `http://127.0.0.1:${gatewayPort}`, RENDERER_PORT: '0' })
    t.teardown(() => renderer.stop())
    const { port: rendererPort } = await listening(renderer, 'renderer')
    try {
      return await startSystem({ PORT: String(gatewayPort), RENDERER_URL: `http://127.0.0.1:${rendererPort}` })
    } catch (error) {
      await renderer.stop()
      throw error
    }
  })
  t.teardown(() => system.close())
  const response = await request(`${system.url}/over-ons`)
  const html = await response.body.text()
  t.equal(response.statusCode, 200)
  t.equal(h1Of(html), titleOf(store, `${DEFAULT_SITE_HANDLE}About`))
})

t.test('npm start runs both services, each finding the other from PORT and RENDERER_PORT alone; SIGTERM stops both cleanly', async (t) => {
  // npm start tells each service the other's port, so those two are picked; the gateway's other listeners bind port 0.
  // Both start again on other ports if one was taken before it was bound (npm start stops when a service dies).
  const { started, port, rendererPort } = await retryOnAddressInUse(async () => {
    const [port, rendererPort] = await Promise.all([freePort(), freePort()])
    const started = startProcess('scripts/start.mjs', {
      PORT: String(port),
      INTERNAL_PORT: '0',
      EMBEDDED_CMS_PORT: '0',
      RENDERER_PORT: String(rendererPort),
      // Every page asks the embedded CMS, over the gateway's own port: slow enough that all are in flight at SIGTERM.
      PAGE_CACHE: 'false',
      QUERY_CACHE: 'false',
    })
    t.teardown(() => started.stop('SIGKILL'))
    try {
      await Promise.all([listening(started, 'gateway'), listening(started, 'renderer')])
    } catch (error) {
      await started.stop('SIGKILL')
      throw error
    }
    return { started, port, rendererPort }
  })
  const response = await request(`http://127.0.0.1:${port}/`)
  const html = await response.body.text()
  t.equal(response.statusCode, 200)
  t.equal(h1Of(html), titleOf(store, `${DEFAULT_SITE_HANDLE}Home`))
  const unsigned = await request(`http://127.0.0.1:${rendererPort}/`, {
    method: 'POST',
    headers: { 'content-type': RENDER_REQUEST_CONTENT_TYPE, [RENDER_PROTOCOL_HEADER]: RENDER_PROTOCOL_VERSION },
    body: '{}\n[]',
  })
  await unsigned.body.dump()
  t.equal(unsigned.statusCode, 403, 'npm start gave both one RENDER_SECRET: the renderer renders only what the gateway signed')

  // SIGTERM with pages in flight, each needing the gateway's own payload and embedded CMS routes to finish.
  const home = titleOf(store, `${DEFAULT_SITE_HANDLE}Home`)
  // Thirty connections open before the pages are asked for, so every request is at the gateway when SIGTERM comes.
  const agent = new Agent({ connections: 30 })
  t.teardown(() => agent.close())
  await Promise.all(Array.from({ length: 30 }, async () => (await request(`http://127.0.0.1:${port}/healthz`, { dispatcher: agent })).body.dump()))
  const answers = Array.from({ length: 30 }, async () => {
    try {
      const page = await request(`http://127.0.0.1:${port}/`, { dispatcher: agent, signal: AbortSignal.timeout(10_000), headers: { 'accept-encoding': 'identity' } })
      const text = await page.body.text()
      if (page.statusCode === 503 && text.includes('De website is even niet beschikbaar')) return 'refused'
      return page.statusCode === 200 && text.trimEnd().endsWith('</html>') && h1Of(text) === home ? 'complete' : `broken ${page.statusCode}`
    } catch (error) {
      return `failed ${(error as { code?: string }).code}`
    }
  })
  await Promise.race(answers)
  const signalled = Date.now()
  const code = await started.stop('SIGTERM')
  t.equal(code, 0, 'exits cleanly')
  t.ok(Date.now() - signalled < 10_000, 'within 10 s')
  t.same((await Promise.all(answers)).filter((answer) => answer !== 'complete' && answer !== 'refused'), [], 'every page in flight complete, or refused with the Dutch 503; none cut off')
  await t.rejects(request(`http://127.0.0.1:${rendererPort}/healthz`), 'the renderer is gone too')
})

t.test('a bad setting stops a service at start with a clear message', async (t) => {
  const gateway = startProcess('dist/gateway.js', { PORT: 'drieduizend' })
  const code = await new Promise<number | null>((resolve) => gateway.child.on('exit', resolve))
  t.equal(code, 2)
  t.match(gateway.output(), 'PORT="drieduizend" is not a whole number')
  const renderer = startProcess('dist/renderer.js', { GATEWAY_URL: 'ftp://nope' })
  const rendererCode = await new Promise<number | null>((resolve) => renderer.child.on('exit', resolve))
  t.equal(rendererCode, 2)
  t.match(renderer.output(), 'GATEWAY_URL')
})
