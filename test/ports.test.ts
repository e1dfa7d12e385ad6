import { createServer } from 'node:net'
import t from 'tap'
import { request } from 'undici'
import { isAddressInUse, retryOnAddressInUse } from './helpers/ports.ts'
import { listening, startProcess } from './helpers/processes.ts'

// How the tests start services without picking a port free and binding it later (issue 31).

t.test('a service given port 0 says where it listens: the gateway its public and internal addresses', async (t) => {
  const gateway = startProcess('dist/gateway.js', { HOST: '127.0.0.1', PORT: '0', INTERNAL_PORT: '0', RENDERER_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'info' })
  t.teardown(() => gateway.stop('SIGKILL'))
  const line = await listening(gateway, 'gateway')
  t.ok(line.port > 0, `a port of the kernel's choosing (${line.port})`)
  t.match(line.internal, /^http:\/\/127\.0\.0\.1:\d+$/)
  for (const url of [line.url, line.internal]) {
    const answer = await request(`${url}/healthz`)
    t.same(await answer.body.json(), { status: 'ok' }, `${url}: the gateway`)
  }
})

t.test('a service whose port was taken: listening() rejects with EADDRINUSE, and retryOnAddressInUse starts again', async (t) => {
  const holder = createServer()
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => holder.close(resolve)))
  const taken = (holder.address() as { port: number }).port

  const ports = [taken, 0]
  const tried: number[] = []
  const line = await retryOnAddressInUse(async () => {
    const port = ports[tried.length] ?? 0
    tried.push(port)
    const renderer = startProcess('dist/renderer.js', { RENDERER_PORT: String(port), GATEWAY_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'info' })
    t.teardown(() => renderer.stop('SIGKILL'))
    return listening(renderer, 'renderer')
  })
  t.same(tried, [taken, 0], 'the taken port, then another')
  t.not(line.port, taken)
})

t.test('retryOnAddressInUse gives up on any other error at once, and on EADDRINUSE after its attempts', async (t) => {
  let calls = 0
  await t.rejects(
    retryOnAddressInUse(async () => {
      calls++
      throw new Error('something else')
    }),
    { message: 'something else' },
  )
  t.equal(calls, 1)
  calls = 0
  await t.rejects(
    retryOnAddressInUse(async () => {
      calls++
      throw Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' })
    }, 3),
    { code: 'EADDRINUSE' },
  )
  t.equal(calls, 3)
  t.ok(isAddressInUse(new Error('the renderer exited: Error: listen EADDRINUSE: address already in use 127.0.0.1:3001')))
})
