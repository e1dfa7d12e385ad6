import { connect } from 'node:net'
import t from 'tap'
import { request } from 'undici'
import { startSystem } from '../helpers/system.ts'

// Timeouts short enough for a test; the defaults are 30 s and 15 s.
const system = await startSystem({ REQUEST_TIMEOUT_MS: '400', HEADERS_TIMEOUT_MS: '300' })
t.teardown(() => system.close())
const { port } = new URL(system.url)

/** Sends the bytes, then reads until the gateway closes the connection. */
function raw(bytes: string, options: { drip?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1')
    let answer = ''
    let dripping: NodeJS.Timeout | undefined
    socket.on('connect', () => {
      socket.write(bytes)
      // A slow client: one more byte now and then, never the end of the body.
      if (options.drip) dripping = setInterval(() => socket.writable && socket.write(options.drip ?? ''), 100)
    })
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')))
    socket.on('close', () => {
      clearInterval(dripping)
      resolve(answer)
    })
    socket.on('error', (error) => {
      clearInterval(dripping)
      if (answer) resolve(answer)
      else reject(error)
    })
  })
}

function parse(answer: string): { status: number; headers: Record<string, string>; body: string } {
  const [head = '', body = ''] = answer.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine.split(' ')[1]), headers, body }
}

t.test('a body that never ends is cut off at the request timeout with 408 in the JSON error shape', async (t) => {
  const answer = parse(
    await raw('POST /api HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n', { drip: '1\r\n \r\n' }),
  )
  t.equal(answer.status, 408)
  t.equal(JSON.parse(answer.body).errors[0].extensions.code, 'REQUEST_TIMEOUT')
  t.equal(answer.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'")
  t.equal(answer.headers['x-content-type-options'], 'nosniff')
})

t.test('headers that never end are cut off at the headers timeout', async (t) => {
  const answer = parse(await raw('GET / HTTP/1.1\r\nHost: localhost\r\n', { drip: 'X-Slow: 1\r\n' }))
  t.equal(answer.status, 408)
  t.equal(JSON.parse(answer.body).errors[0].extensions.code, 'REQUEST_TIMEOUT')
})

t.test("errors raised before routing come in the gateway's shapes, with the CSP", async (t) => {
  for (const path of ['/%ff', '/%', '/over-ons%']) {
    const page = await request(`${system.url}${path}`)
    t.equal(page.statusCode, 400, `${path}: 400`)
    t.match(page.headers['content-type'], /^text\/html/, `${path}: a visitor gets the Dutch page`)
    t.match(await page.body.text(), /Dit adres klopt niet/)
    t.match(page.headers['content-security-policy'], /default-src 'none'/, `${path}: with a CSP`)
  }
  const payload = await request(`${system.url}/%ff/_payload.json`)
  t.equal(payload.statusCode, 400)
  t.equal(((await payload.body.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code, 'BAD_REQUEST', 'a program gets the JSON error')

  const huge = parse(await raw(`GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`))
  t.equal(huge.status, 431)
  t.equal(JSON.parse(huge.body).errors[0].extensions.code, 'HEADERS_TOO_LARGE')
  t.ok(huge.headers['content-security-policy'], '431 with a CSP')

  const garbage = parse(await raw('NOT HTTP AT ALL\r\n\r\n'))
  t.equal(garbage.status, 400)
  t.equal(JSON.parse(garbage.body).errors[0].extensions.code, 'BAD_REQUEST')

  const method = await request(`${system.url}/over-ons`, { method: 'DELETE' })
  t.equal(method.statusCode, 404)
  t.same(await method.body.json(), { errors: [{ message: 'Not found', extensions: { code: 'NOT_FOUND' } }] }, 'no route: the same JSON shape')
  t.ok(method.headers['content-security-policy'])
})

t.test('Accept-Encoding is read with its q-values, on fresh and stored pages and on payloads', async (t) => {
  const get = async (path: string, acceptEncoding: string) => {
    const response = await request(`${system.url}${path}`, { headers: { 'accept-encoding': acceptEncoding } })
    await response.body.dump()
    return { encoding: response.headers['content-encoding'], cache: response.headers['x-cache'] }
  }
  const refusing = 'br;q=0, gzip;q=0, identity'
  const fresh = await get('/werken-bij', refusing)
  t.equal(fresh.cache, 'MISS')
  t.equal(fresh.encoding, undefined, 'a fresh page: not encoded')
  const stored = await get('/werken-bij', refusing)
  t.equal(stored.cache, 'HIT')
  t.equal(stored.encoding, undefined, 'a stored page: not encoded either')
  // A stored page's variant is made off the event loop once a client asks for its encoding: once both are there, a hit is served in the one the q-values choose.
  for (const encoding of ['br', 'gzip']) await get('/werken-bij', encoding)
  await system.gateway.pageCache.idle()
  t.equal((await get('/werken-bij', 'gzip;q=1, br;q=0.5')).encoding, 'gzip', 'the higher q wins')
  t.equal((await get('/werken-bij', 'br, gzip')).encoding, 'br')
  t.equal((await get('/werken-bij', 'gzip, br;q=0')).encoding, 'gzip')
  t.equal((await get('/werken-bij/_payload.json', refusing)).encoding, undefined, 'a payload: not encoded')
})
