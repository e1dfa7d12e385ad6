import { connect } from 'node:net'
import t, { type Test } from 'tap'
import { GENERIC_ERROR_HEADING } from '../shared/constants.ts'
import { h1Of } from './helpers/html.ts'
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
      const received = Buffer.concat(chunks)
      const text = received.toString('latin1')
      const cut = text.indexOf('\r\n\r\n')
      // The head byte for byte, the body as the UTF-8 it is sent in.
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), head: text.slice(0, cut), body: received.subarray(cut + 4).toString('utf8') })
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

/**
 * What one input must get: its exact status, and a page (its <title>), a
 * page's payload (its screen) or a JSON error (its code, and its message
 * where that tells the causes apart).
 */
type Expected = { status: number; title: string } | { status: number; screen: string } | { status: number; code?: string; message?: string }

/** Not a path of this site (shared/site-path.ts refuses it): the gateway's own Dutch 400 page. */
const NOT_A_SITE_PATH: Expected = { status: 400, title: GENERIC_ERROR_HEADING }
/** The same for a payload or /api: a JSON error. */
const NOT_A_SITE_PATH_JSON: Expected = { status: 400, code: 'BAD_REQUEST', message: 'Invalid path' }
/** A request target too long (gateway/http/request-size.ts): the Dutch 414 page, or the JSON error. */
const TOO_LONG: Expected = { status: 414, title: GENERIC_ERROR_HEADING }
const TOO_LONG_JSON: Expected = { status: 414, code: 'URI_TOO_LONG' }
/** Node's HTTP parser refuses the request itself (raw bytes it does not allow, an unknown method, a body that lies). */
const NOT_HTTP: Expected = { status: 400, code: 'BAD_REQUEST', message: 'The request is not valid HTTP' }
/** A valid path that names no page (a traversal decodes to a path inside the site's routes): the site's 404 page, rendered. */
const NO_SUCH_PAGE: Expected = { status: 404, title: 'Deze pagina bestaat niet (meer) | Havenborg Assurantiën' }
const NO_SUCH_PAYLOAD: Expected = { status: 404, screen: 'error' }
const BAD_PART: Expected = { status: 400, code: 'BAD_REQUEST', message: 'part must be one of all, primary, deferred' }

function answered(t: Test, answer: RawAnswer, expected: Expected, label: string): void {
  t.equal(answer.status, expected.status, `${label}: ${expected.status}`)
  t.notOk(SECRETS.find((secret) => answer.body.includes(secret)), `${label}: no repository file in the answer`)
  const type = /^content-type: (.*)$/im.exec(answer.head)?.[1] ?? ''
  if ('title' in expected) {
    t.match(type, /^text\/html/, `${label}: a page`)
    t.equal(/<title>([^<]*)<\/title>/.exec(answer.body)?.[1], expected.title, `${label}: "${expected.title}"`)
    return
  }
  t.match(type, /^application\/json/, `${label}: JSON`)
  const body = JSON.parse(answer.body) as { screen?: string; status?: number; errors?: { message?: string; extensions?: { code?: string } }[] }
  if ('screen' in expected) {
    t.same({ screen: body.screen, status: body.status }, { screen: expected.screen, status: expected.status }, `${label}: the ${expected.screen} screen's payload`)
    return
  }
  const error = body.errors?.[0]
  if (expected.code !== undefined) t.equal(error?.extensions?.code, expected.code, `${label}: ${expected.code}`)
  if (expected.message !== undefined) t.equal(error?.message, expected.message, `${label}: "${expected.message}"`)
}

const ODD_PATHS: [string, Expected][] = [
  // Longer than MAX_SITE_PATH_LENGTH or MAX_URL_LENGTH: the gateway's Dutch 414 page.
  [`/${'a'.repeat(10_000)}`, TOO_LONG],
  [`/${'a/'.repeat(5_000)}x`, TOO_LONG],
  [`/${'%41'.repeat(3_000)}`, TOO_LONG],
  [`/${'a'.repeat(10_000)}/_payload.json`, TOO_LONG_JSON],
  // Control characters and backslashes, raw or encoded.
  ['/%00', NOT_A_SITE_PATH],
  ['/over-ons%00', NOT_A_SITE_PATH],
  ['/..%5c..%5cpackage.json', NOT_A_SITE_PATH],
  ['/topical/%00/_payload.json', NOT_A_SITE_PATH_JSON],
  // Percent-encoding that does not decode (bad UTF-8, overlong forms, a lone %).
  ['/%C0%AF', NOT_A_SITE_PATH],
  ['/%c0%ae%c0%ae/%c0%ae%c0%ae/package.json', NOT_A_SITE_PATH],
  ['/%ff%fe', NOT_A_SITE_PATH],
  ['/%', NOT_A_SITE_PATH],
  ['/%%', NOT_A_SITE_PATH],
  ['/%zz', NOT_A_SITE_PATH],
  ['/over-ons/_payload.json?part=%', NOT_A_SITE_PATH_JSON],
  // Another origin wherever the path is resolved against a base URL.
  ['//host/x', NOT_A_SITE_PATH],
  ['//evil.example/_payload.json', NOT_A_SITE_PATH_JSON],
  // Raw UTF-8 in the request line.
  ['/über', NOT_HTTP],
  // Traversals that decode to paths of the site: no page there, and never a file.
  ['/..%2f..%2fetc/passwd', NO_SUCH_PAGE],
  ['/%2e%2e/%2e%2e/package.json', NO_SUCH_PAGE],
  ['/%2e%2e%2f%2e%2e%2fpackage.json', NO_SUCH_PAGE],
  ['/assets/..%2f..%2fpackage.json', NO_SUCH_PAGE],
  ['/assets/%2e%2e/%2e%2e/package.json', NO_SUCH_PAGE],
  ['/assets/..%252f..%252fpackage.json', NO_SUCH_PAGE],
  ['/images/%2e%2e/%2e%2e/gateway/config.ts', NO_SUCH_PAGE],
  ['/images/..%2f..%2fgateway%2fconfig.ts', NO_SUCH_PAGE],
  ['/styles.css/..%2f..%2fpackage.json', NO_SUCH_PAGE],
  ['/%E2%80%AE', NO_SUCH_PAGE],
  ['/%2e%2e/_payload.json', NO_SUCH_PAYLOAD],
  ['/..%2f..%2fpackage.json/_payload.json', NO_SUCH_PAYLOAD],
  ['/a/b/c/d/e/f/_payload.json', NO_SUCH_PAYLOAD],
  // The volume's static files: a path that climbs out of the folder is forbidden, an encoded slash names no file.
  ['/cms-assets/%2e%2e/%2e%2e/gateway/config.ts', { status: 403, message: 'Forbidden' }],
  ['/cms-assets/..%2f..%2fcontent%2fsite-topical.json', { status: 404, title: GENERIC_ERROR_HEADING }],
  ['/cms-assets/..%252f..%252fpackage.json', { status: 404, title: GENERIC_ERROR_HEADING }],
  // A payload's part is one of three.
  ['/_payload.json?part=x', BAD_PART],
  ['/over-ons/_payload.json?part=', BAD_PART],
]

t.test('odd and traversing paths: each its exact answer, never a file of the repository', async (t) => {
  for (const [path, expected] of ODD_PATHS) answered(t, await get(path), expected, path.slice(0, 60))
})

t.test('bad UTF-8 and control bytes in the request line: refused by the HTTP parser', async (t) => {
  for (const path of ['/\xff\xfe', '/over-ons\xc3', '/\xc0\xaf..\xc0\xafpackage.json', '/a\x7fb', '/a\x01b']) {
    const answer = await raw(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`)
    answered(t, answer, NOT_HTTP, JSON.stringify(path))
  }
})

t.test('bad UTF-8 in a header value is harmless: the page as usual', async (t) => {
  // Bytes above 0x7f in a header value are obs-text (RFC 9110): allowed, and no header the gateway reads.
  const answer = await get('/', 'X-Odd: \xff\xfe\xc0\r\n')
  answered(t, answer, { status: 200, title: 'Havenborg Assurantiën' }, 'X-Odd: \\xff\\xfe\\xc0')
  t.equal(h1Of(answer.body), h1Of((await get('/')).body), 'the home page')
})

t.test('huge headers: 431', async (t) => {
  const tooLarge: Expected = { status: 431, code: 'HEADERS_TOO_LARGE' }
  answered(t, await get('/', `Cookie: craft_token=${'x'.repeat(20_000)}\r\n`), tooLarge, '20 KB cookie')
  answered(t, await get('/over-ons', `X-Big: ${'y'.repeat(80_000)}\r\n`), tooLarge, '80 KB header')
  answered(t, await get('/', Array.from({ length: 2_000 }, (_, i) => `X-H${i}: ${'z'.repeat(10)}\r\n`).join('')), tooLarge, '2,000 headers')
})

const NOT_AN_OBJECT: Expected = { status: 400, code: 'BAD_REQUEST', message: 'The body must be a JSON object' }
const NO_QUERY: Expected = { status: 400, code: 'BAD_REQUEST', message: 'The body has no query' }
const INVALID_JSON: Expected = { status: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' }
/** A JSON object with none of the purge's keys is a valid request to purge everything. */
const PURGES_ALL = 'purges all'
/** A key the purge does not know is refused, not taken for none: no key purges everything. */
const UNKNOWN_KEY = (key: string): Expected => ({ status: 400, code: 'BAD_REQUEST', message: `Unknown key "${key}": a purge names sections, tags, entry and hard` })

t.test('bad bodies to /api and /api/purge: each its exact JSON error', async (t) => {
  const bodies: { label: string; body: Buffer | string; contentType?: string; api: Expected; purge: Expected | typeof PURGES_ALL }[] = [
    { label: 'empty', body: '', api: { status: 400, code: 'FST_ERR_CTP_EMPTY_JSON_BODY' }, purge: { status: 400, code: 'FST_ERR_CTP_EMPTY_JSON_BODY' } },
    { label: 'not JSON', body: '{query: nope', api: INVALID_JSON, purge: INVALID_JSON },
    { label: 'truncated', body: '{"query": "query {', api: INVALID_JSON, purge: INVALID_JSON },
    { label: 'a string', body: '"query"', api: NOT_AN_OBJECT, purge: NOT_AN_OBJECT },
    { label: 'an array', body: '[{"query":"{ entries { id } }"}]', api: NOT_AN_OBJECT, purge: NOT_AN_OBJECT },
    { label: 'null', body: 'null', api: NOT_AN_OBJECT, purge: NOT_AN_OBJECT },
    { label: 'a number', body: '42', api: NOT_AN_OBJECT, purge: NOT_AN_OBJECT },
    { label: 'deep nesting', body: `${'['.repeat(5_000)}${']'.repeat(5_000)}`, api: NOT_AN_OBJECT, purge: NOT_AN_OBJECT },
    { label: 'no query', body: '{"variables": {}}', api: NO_QUERY, purge: UNKNOWN_KEY('variables') },
    { label: 'query not a string', body: '{"query": {"a": 1}}', api: NO_QUERY, purge: UNKNOWN_KEY('query') },
    { label: 'bad UTF-8', body: Buffer.from([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), api: NO_QUERY, purge: UNKNOWN_KEY('q') },
    { label: 'no charset JSON with a bad charset', body: '{}', contentType: 'application/json; charset=utf-99', api: NO_QUERY, purge: PURGES_ALL },
    { label: 'variables an array', body: '{"query": "query { ping }", "variables": [1]}', api: { status: 400, code: 'BAD_REQUEST', message: 'variables must be an object' }, purge: UNKNOWN_KEY('query') },
    { label: 'operationName a number', body: '{"query": "query { ping }", "operationName": 7}', api: { status: 400, code: 'BAD_REQUEST', message: 'operationName must be a string' }, purge: UNKNOWN_KEY('query') },
    { label: 'an unknown operation', body: '{"query": "query { __schema { types { name } } }"}', api: { status: 400, code: 'OPERATION_NOT_ALLOWED' }, purge: UNKNOWN_KEY('query') },
    // Fastify's JSON parser (secure-json-parse) refuses prototype keys outright.
    { label: '__proto__', body: '{"__proto__": {"polluted": true}, "query": "x"}', api: INVALID_JSON, purge: INVALID_JSON },
    { label: 'constructor', body: '{"constructor": {"prototype": {"polluted": true}}}', api: INVALID_JSON, purge: INVALID_JSON },
    { label: 'too large', body: `{"query": "${'q'.repeat(200_000)}"}`, api: { status: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' }, purge: { status: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' } },
    { label: 'form encoded', body: 'query=x', contentType: 'application/x-www-form-urlencoded', api: { status: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }, purge: { status: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' } },
    // Fastify reads text/plain as a string: /api refuses the type, /api/purge the string.
    { label: 'text', body: 'query', contentType: 'text/plain', api: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' }, purge: NOT_AN_OBJECT },
  ]
  for (const { label, body, contentType, api: forApi, purge: forPurge } of bodies) {
    const api = await post('/api', body, contentType)
    answered(t, api, forApi, `/api ${label}`)
    t.notMatch(api.body, /Internal server error|at .*\.ts:\d+/, `/api ${label}: no internals`)
    const purge = await post('/api/purge', body, contentType, 'x-purge-secret: s3cret\r\n')
    if (forPurge !== PURGES_ALL) answered(t, purge, forPurge, `/api/purge ${label}`)
    else {
      t.equal(purge.status, 200, `/api/purge ${label}: 200`)
      t.match(JSON.parse(purge.body), { purged: Number, sections: null, tags: null }, `/api/purge ${label}: purges all`)
    }
  }
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted')
  const shortBody = await raw('POST /api HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"query"', '', true)
  answered(t, shortBody, NOT_HTTP, 'a body shorter than its Content-Length')
  const smuggle = await raw('POST /api HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')
  answered(t, smuggle, NOT_HTTP, 'Content-Length with Transfer-Encoding')
})

t.test('odd methods on pages and /api', async (t) => {
  for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'FOO']) {
    for (const path of ['/', '/over-ons', '/over-ons/_payload.json', '/api', '/api/purge', '/styles.css', '/healthz']) {
      const answer = await raw(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
      // A method Node's parser does not know is not HTTP; one it knows, on an address without it, is no route.
      answered(t, answer, method === 'FOO' ? NOT_HTTP : { status: 404, code: 'NOT_FOUND', message: 'Not found' }, `${method} ${path}`)
      if (method === 'TRACE') t.notMatch(answer.body, /Host: localhost/i, 'TRACE echoes nothing')
    }
  }
  // Node's HTTP server closes a CONNECT it has no handler for, without an answer.
  const connect = await raw('CONNECT localhost:80 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
  t.same({ status: connect.status, body: connect.body }, { status: 0, body: '' }, 'CONNECT: the connection closed, nothing sent')
  const head = await raw('HEAD /over-ons HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')
  t.equal(head.status, 200, 'HEAD of a page still works')
})

t.test('bad query strings', async (t) => {
  for (const query of ['?%', '?a=%ZZ']) {
    answered(t, await get(`/topical${query}`), NOT_A_SITE_PATH, `/topical${query}`)
    answered(t, await get(`/topical/_payload.json${query}`), NOT_A_SITE_PATH_JSON, `/topical/_payload.json${query}`)
  }
  // A page number that is not a positive whole number within the list names no page.
  for (const query of ['?pagina=-1', '?pagina=0', '?pagina=abc', '?pagina=99999999999999999999', '?pagina=1e3', '?pagina=%00']) {
    answered(t, await get(`/topical${query}`), NO_SUCH_PAGE, `/topical${query}`)
    answered(t, await get(`/topical/_payload.json${query}`), NO_SUCH_PAYLOAD, `/topical/_payload.json${query}`)
  }
  for (const query of ['?%', '?a=%ZZ', '?%ff%fe']) answered(t, await get(`/over-ons${query}`), NOT_A_SITE_PATH, `/over-ons${query}`)
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
