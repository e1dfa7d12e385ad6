import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { type Socket, connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { startSystem } from '../helpers/system.ts'

// Far more than the kernel's socket buffers hold on loopback (a 4 MB send buffer, the reader's window): a client that reads nothing stalls it.
const FILE_BYTES = 32 * 1024 * 1024
const SEND_TIMEOUT_MS = 1000

const publicDir = mkdtempSync(join(tmpdir(), 'send-timeout-'))
t.teardown(() => rmSync(publicDir, { recursive: true, force: true }))
writeFileSync(join(publicDir, 'big.bin'), Buffer.alloc(FILE_BYTES, 7))

const system = await startSystem({ PUBLIC_DIR: publicDir, SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS) }, undefined, {
  // An answer that begins only once its socket has been idle longer than the send timeout.
  beforeRoutes: (app) =>
    app.get('/after-a-timeout', async (request) => {
      await once(request.raw.socket, 'timeout')
      return { waited: true }
    }),
})
t.teardown(() => system.close())
const port = Number(new URL(system.url).port)

const connections = (): Promise<number> =>
  new Promise((resolve, reject) => system.gateway.server.getConnections((error, count) => (error ? reject(error) : resolve(count))))

function getBig(): Socket {
  const socket = connect(port, '127.0.0.1')
  socket.write('GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n')
  return socket
}

/** Resolves when the socket closes; fails the test if it is still open long after the gateway should have acted. */
function closed(t: Test, socket: Socket, bound: number): Promise<boolean> {
  return new Promise((resolve) => {
    const guard = setTimeout(() => {
      t.fail(`still open after ${bound} ms`)
      socket.destroy()
      resolve(false)
    }, bound)
    socket.on('close', () => {
      clearTimeout(guard)
      resolve(true)
    })
  })
}

t.test('a client that stops reading a large answer is cut off after SEND_TIMEOUT_MS without progress', async (t) => {
  // The gateway's end of the connection: a client that reads nothing does not see its close until it reads again.
  const accepted = once(system.gateway.server, 'connection') as Promise<[Socket]>
  const socket = getBig()
  socket.on('error', () => {})
  const [served] = await accepted
  let received = 0
  let reading = false
  socket.on('data', (chunk: Buffer) => {
    received += chunk.byteLength
    // The first bytes (the answer has begun), then nothing more.
    if (!reading) socket.pause()
  })
  t.ok(await closed(t, served, 30 * SEND_TIMEOUT_MS), 'the gateway closed the connection')
  t.equal(await connections(), 0, 'the gateway holds no connection')
  reading = true
  socket.resume()
  t.ok(await closed(t, socket, 30 * SEND_TIMEOUT_MS), 'the client, reading again, finds it closed')
  t.ok(received > 0 && received < FILE_BYTES, `the answer had begun and was not whole (${received} bytes)`)
})

t.test('a client that reads slowly, for longer than SEND_TIMEOUT_MS in all, gets the whole answer', async (t) => {
  const socket = getBig()
  const started = Date.now()
  let received = 0
  let sincePause = 0
  socket.on('data', (chunk: Buffer) => {
    received += chunk.byteLength
    sincePause += chunk.byteLength
    // A pause far shorter than the timeout after every 256 KB: always progress, never fast.
    if (sincePause >= 256 * 1024) {
      sincePause = 0
      socket.pause()
      setTimeout(() => socket.resume(), 25)
    }
    if (received >= FILE_BYTES) socket.end()
  })
  t.ok(await closed(t, socket, 120_000))
  t.ok(received > FILE_BYTES, `the whole file and its head (${received} bytes)`)
  t.ok(Date.now() - started > SEND_TIMEOUT_MS, 'for longer than the send timeout')
})

t.test('an answer that has not begun is not cut, however long its socket is idle', async (t) => {
  const answer = await request(`${system.url}/after-a-timeout`)
  t.equal(answer.statusCode, 200)
  t.same(await answer.body.json(), { waited: true })
})
