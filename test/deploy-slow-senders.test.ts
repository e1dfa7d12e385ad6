import { existsSync } from 'node:fs'
import { get } from 'node:http'
import { type Socket, connect } from 'node:net'
import t from 'tap'
import { NGINX, shippedNginxConf, startDeployNginx } from '../scripts/deploy-nginx.mjs'
import { startSystem } from './helpers/system.ts'

// Issue 41: one address opening thousands of connections to nginx and sending its requests slowly (a body byte now
// and then, or headers never finished) took every worker connection, and visitors from elsewhere got nothing. The
// shipped deploy/nginx.conf, scaled down by SCALE for the test (its worker connections; one worker, so that every
// connection counts against the same ones): the 5,000 slow bodies and 6,000 slow headers become 1/SCALE of
// that, and a visitor from another loopback address must still get a page.

const SCALE = 16
const SLOW_BODIES = Math.round(5000 / SCALE)
const SLOW_HEADERS = Math.round(6000 / SCALE)

const shipped = shippedNginxConf('tls')
const directive = (name: string): string => new RegExp(`^\\s*${name} ([^;]+);`, 'm').exec(shipped)?.[1] ?? ''
const seconds = (value: string): number => Number(/^(\d+)s$/.exec(value)?.[1] ?? Number.NaN)

t.test('the shipped bounds: every location limited per address, short client timeouts, room for far more than one address holds', async (t) => {
  const workerConnections = Number(/worker_connections (\d+);/.exec(shipped)?.[1])
  const perClient = Number(/^\s*limit_conn per_client (\d+);/m.exec(shipped)?.[1])
  t.match(shipped, /^ {2}limit_conn_zone \$client_key zone=per_client:/m, 'a zone keyed by the client (an IPv6 /64 as one: test/deploy-tls.test.ts)')
  t.ok(perClient >= 16, `room for a browser and an office behind one address (${perClient})`)
  // Two connections per proxied request (the client's and the gateway's): one address at most 1% of one worker's.
  t.ok(perClient * 2 <= workerConnections / 100, `one address holds at most 1% of a worker's ${workerConnections} connections`)
  t.ok(Number(directive('worker_rlimit_nofile')) >= workerConnections * 2, 'the worker may open a file for both ends of each')
  t.ok(seconds(directive('client_header_timeout')) <= 10, 'headers within a few seconds')
  t.ok(seconds(directive('client_body_timeout')) <= 15, 'a body may pause a few seconds')
  t.equal(directive('reset_timedout_connection'), 'on')
  // Every location but the live preview's (limited per address by its own zone) inherits the http block's limit.
  const locations = [...shipped.matchAll(/location ([^{]+)\{([^}]*)\}/g)]
  t.ok(locations.length >= 3)
  for (const [, name, body] of locations) t.ok(!/limit_conn /.test(body ?? '') || /limit_conn live_per_client /.test(body ?? ''), `${name?.trim()}: limited per address`)
})

/** A connection from `localAddress` that sends `text` and no more; `ended` settles when nginx answers or closes it (the status line, or ''). */
function slowSender(port: number, localAddress: string, text: string): { socket: Socket; ended: Promise<string> } {
  const socket = connect({ host: '127.0.0.1', port, localAddress })
  const ended = new Promise<string>((resolve) => {
    let received = ''
    const done = (): void => resolve(received.split('\r\n')[0] ?? '')
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1')
      if (received.includes('\r\n')) {
        done()
        socket.destroy()
      }
    })
    socket.once('close', done)
    socket.once('error', done)
  })
  socket.write(text)
  return { socket, ended }
}

/** A GET from `localAddress` (undici's Agent does not bind one): status and body, or status 0 when the connection failed. */
function visit(port: number, path: string, localAddress: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const asked = get({ host: '127.0.0.1', port, path, localAddress, agent: false }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    asked.on('error', () => resolve({ status: 0, body: '' }))
  })
}

/** Resolves once `done()` holds, checked every 50 ms; rejects as soon as `failed()` says why not. */
async function until(done: () => boolean, failed: () => string | undefined): Promise<void> {
  for (;;) {
    const why = failed()
    if (why !== undefined) throw new Error(why)
    if (done()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const SLOW_BODY = 'POST /api HTTP/1.1\r\nHost: www.havenborg.example\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{'
const SLOW_HEADER = 'GET /over-ons HTTP/1.1\r\nHost: www.havenborg.example\r\nAccept: text/html\r\n'

t.test('through nginx, one address sending slowly on hundreds of connections leaves pages to everyone else', { skip: existsSync(NGINX) ? false : `no ${NGINX}`, timeout: 90_000 }, async (t) => {
  const system = await startSystem({ TRUST_PROXY: '1' })
  t.teardown(() => system.close())
  const workerConnections = Math.round(Number(/worker_connections (\d+);/.exec(shipped)?.[1]) / SCALE)
  const perClient = Number(/^\s*limit_conn per_client (\d+);/m.exec(shipped)?.[1] ?? 0)
  const nginx = await startDeployNginx({
    gatewayUrl: system.url,
    // One worker, so that every connection counts against the same worker_connections.
    edit: (config: string) => config.replace(/^worker_processes .*;$/m, 'worker_processes 1;').replace(/worker_connections \d+;/, `worker_connections ${workerConnections};`),
  })
  t.teardown(() => nginx.close())
  const exhausted = (): string | undefined => (nginx.errorLog().includes('worker_connections are not enough') ? `nginx ran out of connections:\n${nginx.errorLog().slice(-500)}` : undefined)

  const headers = Array.from({ length: SLOW_HEADERS }, () => slowSender(nginx.port, '127.0.0.1', SLOW_HEADER))
  const bodies = Array.from({ length: SLOW_BODIES }, () => slowSender(nginx.port, '127.0.0.1', SLOW_BODY))
  t.teardown(() => [...headers, ...bodies].forEach(({ socket }) => socket.destroy()))
  const refused: string[] = []
  for (const { ended } of bodies) void ended.then((status) => refused.push(status))
  // Every slow body past the address's limit is refused at once; the rest are held, reading.
  const tooMany = (): number => refused.filter((status) => status === 'HTTP/1.1 429 Too Many Requests').length
  await until(() => tooMany() >= SLOW_BODIES - perClient, exhausted)
  t.equal(tooMany(), SLOW_BODIES - perClient, `${SLOW_BODIES} slow bodies: ${perClient} held, the rest refused with 429`)
  t.match(nginx.errorLog(), 'limiting connections by zone "per_client"')

  // A visitor from another address, while the slow headers are still held.
  let page: { status: number; body: string } | undefined
  void visit(nginx.port, '/over-ons', '127.0.0.2').then((answer) => (page = answer))
  await until(() => page !== undefined, exhausted)
  t.equal(page?.status, 200, 'the visitor from 127.0.0.2 gets the page')
  t.match(page?.body, '<h1', 'the page itself')
  const open = headers.filter(({ socket }) => !socket.closed).length
  t.comment(`${open} of ${SLOW_HEADERS} slow-header connections still open when the page came`)

  // The unfinished headers are cut off by nginx (client_header_timeout), not kept.
  const cutOff = await Promise.all(headers.map(({ ended }) => ended))
  t.equal(cutOff.filter((status) => status === '').length, SLOW_HEADERS, 'every slow-header connection closed by nginx without an answer')
  t.notMatch(nginx.errorLog(), 'worker_connections are not enough')
})
