import { connect } from 'node:net'
import t, { type Test } from 'tap'
import { startSystem } from './helpers/system.ts'

const system = await startSystem({ PURGE_SECRET: 's3cret', API_RATE_LIMIT: '100000', PURGE_RATE_LIMIT: '100000' })
t.teardown(() => system.close())
const port = new URL(system.url).port

interface RawAnswer {
  status: number
  head: string
  body: string
}

/** One request as bytes on a socket: undici normalises or refuses much of what this test sends. */
function raw(head: string, body: Buffer | string = '', hangUp = false): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1')
    const chunks: Buffer[] = []
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${head.slice(0, 80)}`)))
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1')
      const cut = text.indexOf('\r\n\r\n')
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), head: text.slice(0, cut), body: text.slice(cut + 4) })
    })
    const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body)
    const request = Buffer.concat([Buffer.from(head, 'latin1'), bytes])
    if (hangUp) socket.end(request)
    else socket.write(request)
  })
}

const get = (target: string, extraHeaders = ''): Promise<RawAnswer> =>
  raw(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${extraHeaders}\r\n`)

const post = (target: string, body: Buffer | string, contentType = 'application/json', extraHeaders = ''): Promise<RawAnswer> =>
  raw(
    `POST ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}\r\n`,
    body,
  )

/** Text only files of the repository (or the host) have: none may ever reach a visitor. */
const SECRETS = ['"havenborg-website"', 'loadGatewayConfig', 'root:x:0:0', '"devDependencies"']

function refused(t: Test, answer: RawAnswer, label: string): void {
  t.ok(answer.status >= 400 && answer.status < 500, `${label}: 4xx (got ${answer.status})`)
  t.notOk(SECRETS.find((secret) => answer.body.includes(secret)), `${label}: no repository file in the answer`)
}

const ODD_PATHS = [
  `/${'a'.repeat(10_000)}`,
  `/${'a/'.repeat(5_000)}x`,
  `/${'%41'.repeat(3_000)}`,
  `/${'a'.repeat(10_000)}/_payload.json`,
  '/%00',
  '/over-ons%00',
  '/..%2f..%2fetc/passwd',
  '/%2e%2e/%2e%2e/package.json',
  '/%2e%2e%2f%2e%2e%2fpackage.json',
  '/..%5c..%5cpackage.json',
  '/assets/..%2f..%2fpackage.json',
  '/assets/%2e%2e/%2e%2e/package.json',
  '/assets/..%252f..%252fpackage.json',
  '/images/%2e%2e/%2e%2e/gateway/config.ts',
  '/images/..%2f..%2fgateway%2fconfig.ts',
  '/cms-assets/%2e%2e/%2e%2e/gateway/config.ts',
  '/cms-assets/..%2f..%2fcontent%2fsite-topical.json',
  '/cms-assets/..%252f..%252fpackage.json',
  '/styles.css/..%2f..%2fpackage.json',
  '/%2e%2e/_payload.json',
  '/..%2f..%2fpackage.json/_payload.json',
  '/%C0%AF',
  '/%c0%ae%c0%ae/%c0%ae%c0%ae/package.json',
  '/%ff%fe',
  '/%',
  '/%%',
  '/%zz',
  '/über',
  '/%E2%80%AE',
  '//host/x',
  '//evil.example/_payload.json',
  '/a/b/c/d/e/f/_payload.json',
  '/_payload.json?part=x',
  '/over-ons/_payload.json?part=',
  '/over-ons/_payload.json?part=%',
  '/topical/%00/_payload.json',
]

t.test('odd and traversing paths: 4xx and never a file of the repository', async (t) => {
  for (const path of ODD_PATHS) refused(t, await get(path), path.slice(0, 60))
})

t.test('bad UTF-8 and control bytes in the request line', async (t) => {
  for (const path of ['/\xff\xfe', '/over-ons\xc3', '/\xc0\xaf..\xc0\xafpackage.json', '/a\x7fb', '/a\x01b']) {
    const answer = await raw(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`)
    refused(t, answer, JSON.stringify(path))
  }
  refused(t, await get('/', 'X-Odd: \xff\xfe\xc0\r\n').then((answer) => ({ ...answer, status: answer.status === 200 ? 400 : answer.status })), 'bad UTF-8 in a header value is harmless')
})

t.test('huge headers: 431', async (t) => {
  const cookie = await get('/', `Cookie: craft_token=${'x'.repeat(20_000)}\r\n`)
  t.equal(cookie.status, 431, '20 KB cookie')
  const header = await get('/over-ons', `X-Big: ${'y'.repeat(80_000)}\r\n`)
  t.equal(header.status, 431, '80 KB header')
  const many = await get('/', Array.from({ length: 2_000 }, (_, i) => `X-H${i}: ${'z'.repeat(10)}\r\n`).join(''))
  t.ok(many.status === 431 || (many.status >= 400 && many.status < 500), `2,000 headers: 4xx (got ${many.status})`)
})

const PURGE_ALL = new Set(['no query', 'query not a string', 'variables an array', 'operationName a number', 'an unknown operation', 'bad UTF-8', 'no charset JSON with a bad charset'])

t.test('bad bodies to /api and /api/purge: 4xx JSON errors', async (t) => {
  const bodies: [string, Buffer | string, string?][] = [
    ['empty', ''],
    ['not JSON', '{query: nope'],
    ['truncated', '{"query": "query {'],
    ['a string', '"query"'],
    ['an array', '[{"query":"{ entries { id } }"}]'],
    ['null', 'null'],
    ['a number', '42'],
    ['no query', '{"variables": {}}'],
    ['query not a string', '{"query": {"a": 1}}'],
    ['variables an array', '{"query": "query { ping }", "variables": [1]}'],
    ['operationName a number', '{"query": "query { ping }", "operationName": 7}'],
    ['an unknown operation', '{"query": "query { __schema { types { name } } }"}'],
    ['__proto__', '{"__proto__": {"polluted": true}, "query": "x"}'],
    ['constructor', '{"constructor": {"prototype": {"polluted": true}}}'],
    ['deep nesting', `${'['.repeat(5_000)}${']'.repeat(5_000)}`],
    ['bad UTF-8', Buffer.from([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ['too large', `{"query": "${'q'.repeat(200_000)}"}`],
    ['form encoded', 'query=x', 'application/x-www-form-urlencoded'],
    ['text', 'query', 'text/plain'],
    ['no charset JSON with a bad charset', '{}', 'application/json; charset=utf-99'],
  ]
  for (const [label, body, contentType] of bodies) {
    const api = await post('/api', body, contentType)
    refused(t, api, `/api ${label}`)
    t.notMatch(api.body, /Internal server error|at .*\.ts:\d+/, `/api ${label}: no internals`)
    const purge = await post('/api/purge', body, contentType, 'x-purge-secret: s3cret\r\n')
    // Any JSON object without `sections` is a valid request to purge everything.
    if (PURGE_ALL.has(label)) t.equal(purge.status, 200, `/api/purge ${label}: purges all`)
    else refused(t, purge, `/api/purge ${label}`)
  }
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted')
  const chunkedLie = await raw('POST /api HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"query"', '', true)
  t.ok(chunkedLie.status === 0 || (chunkedLie.status >= 400 && chunkedLie.status < 500), `a body shorter than its Content-Length: 4xx or a closed connection (got ${chunkedLie.status})`)
  const smuggle = await raw('POST /api HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')
  refused(t, smuggle, 'Content-Length with Transfer-Encoding')
})

t.test('odd methods on pages and /api', async (t) => {
  for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'CONNECT', 'FOO']) {
    for (const path of ['/', '/over-ons', '/over-ons/_payload.json', '/api', '/api/purge', '/styles.css', '/healthz']) {
      const target = method === 'CONNECT' ? 'localhost:80' : path
      const answer = await raw(`${method} ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
      // Node's HTTP server closes a CONNECT it has no handler for.
      if (method === 'CONNECT') t.ok(answer.status === 0 || (answer.status >= 400 && answer.status < 500), `CONNECT: refused (got ${answer.status})`)
      else refused(t, answer, `${method} ${path}`)
      if (method === 'TRACE') t.notMatch(answer.body, /Host: localhost/i, 'TRACE echoes nothing')
      if (method === 'CONNECT') break
    }
  }
  const head = await raw('HEAD /over-ons HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
  t.equal(head.status, 200, 'HEAD of a page still works')
})

t.test('bad query strings', async (t) => {
  for (const query of ['?%', '?a=%ZZ', '?pagina=-1', '?pagina=0', '?pagina=abc', '?pagina=99999999999999999999', '?pagina=1e3', '?pagina=%00']) {
    refused(t, await get(`/topical${query}`), `/topical${query}`)
    refused(t, await get(`/topical/_payload.json${query}`), `/topical/_payload.json${query}`)
  }
  for (const query of ['?%', '?a=%ZZ', '?%ff%fe']) refused(t, await get(`/over-ons${query}`), `/over-ons${query}`)
  const fine = await get('/topical?pagina=1')
  t.equal(fine.status, 200, 'a good page number still works')
})

t.test('the gateway and renderer are still healthy', async (t) => {
  t.equal((await get('/healthz')).status, 200)
  t.equal((await get('/over-ons')).status, 200, 'pages still render')
  const crashes = system.gatewayLogs.lines.filter((line) => Number(line.level) >= 50)
  t.same(
    crashes.map((line) => line.msg),
    [],
    'no error logged by the gateway',
  )
})
