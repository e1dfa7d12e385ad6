import { connect } from 'node:net'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { MAX_URL_LENGTH } from '../../shared/constants.ts'
import { MAX_SITE_PATH_LENGTH } from '../../shared/site-path.ts'
import { MAX_HEADER_BYTES, MAX_REQUEST_HEAD_BYTES } from '../../gateway/http/request-size.ts'
import { startSystem } from '../helpers/system.ts'

const CMS_ORIGIN = 'https://cms.example.nl'
const system = await startSystem({ CMS_ORIGIN })
t.teardown(() => system.close())
const { port } = new URL(system.url)

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

/** One request as bytes on a socket, read until the gateway closes it: the head as sent, whatever its size. */
function raw(head: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const cut = text.indexOf('\r\n\r\n')
      const [statusLine = '', ...lines] = text.slice(0, cut).split('\r\n')
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(cut + 4) })
    })
    socket.write(head)
  })
}

const get = (target: string, method = 'GET', extraHeaders = ''): Promise<Answer> =>
  raw(`${method} ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${extraHeaders}${method === 'POST' ? 'Content-Length: 0\r\n' : ''}\r\n`)

/** The gateway's Dutch 414 page, with the fallback page's policy (its stylesheet, framed like a page). */
function isTooLongPage(t: Test, answer: Answer, label: string): void {
  t.equal(answer.status, 414, `${label}: 414`)
  t.match(answer.headers['content-type'], /^text\/html/, `${label}: a page`)
  if (label !== 'HEAD') t.match(answer.body, /Dit adres is te lang/, `${label}: the Dutch text`)
  t.equal(answer.headers['cache-control'], 'private, no-store', `${label}: never stored`)
  const policy = answer.headers['content-security-policy'] ?? ''
  t.match(policy, /^default-src 'none'/, `${label}: default-src 'none'`)
  t.match(policy, /style-src 'self'/, `${label}: its stylesheet`)
  t.match(policy, `frame-ancestors 'self' ${CMS_ORIGIN}`, `${label}: framed like a page`)
  t.equal(answer.headers['x-content-type-options'], 'nosniff', `${label}: nosniff`)
  t.ok(answer.headers['x-request-id'], `${label}: a request id`)
}

function isTooLongJson(t: Test, answer: Answer, label: string): void {
  t.equal(answer.status, 414, `${label}: 414`)
  t.match(answer.headers['content-type'], /^application\/json/, `${label}: JSON`)
  t.same(JSON.parse(answer.body), { errors: [{ message: 'The address is too long', extensions: { code: 'URI_TOO_LONG' } }] }, `${label}: the JSON error`)
  t.equal(answer.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'", `${label}: the policy of JSON`)
}

/** A target of exactly this many characters: the path, then a query that fills it. */
const targetOf = (path: string, length: number): string => `${path}?q=${'x'.repeat(length - path.length - 3)}`

t.test('a target just longer than MAX_URL_LENGTH, or ~20 KB: 414, the Dutch page for a visitor', async (t) => {
  const atBound = await request(`${system.url}${targetOf('/', MAX_URL_LENGTH)}`)
  await atBound.body.dump()
  t.equal(atBound.statusCode, 200, 'exactly MAX_URL_LENGTH: the page')
  for (const [label, target] of [
    ['one over', targetOf('/', MAX_URL_LENGTH + 1)],
    ['~20 KB', targetOf('/', 20_000)],
    ['a page ~20 KB', targetOf('/over-ons', 20_000)],
    ['a static file', targetOf('/styles.css', MAX_URL_LENGTH + 1)],
    ['undecodable too', `/%ff${'a'.repeat(MAX_URL_LENGTH)}`],
  ] as const) isTooLongPage(t, await get(target), label)
  isTooLongPage(t, await get(targetOf('/', 20_000), 'HEAD'), 'HEAD')
})

t.test('a path longer than MAX_SITE_PATH_LENGTH (the renderer refuses it): 414 too', async (t) => {
  const atBound = await get(`/${'a'.repeat(MAX_SITE_PATH_LENGTH - 1)}`)
  t.equal(atBound.status, 404, 'exactly MAX_SITE_PATH_LENGTH: no such page, as any other')
  isTooLongPage(t, await get(`/${'a'.repeat(MAX_SITE_PATH_LENGTH)}`), 'one over')
  isTooLongPage(t, await get(`/${'a/'.repeat(5_000)}x`), '10 KB of segments')
})

t.test('/api and payloads: the JSON error, for any method', async (t) => {
  isTooLongJson(t, await get(targetOf('/api', 20_000)), 'GET /api')
  isTooLongJson(t, await get(targetOf('/api', MAX_URL_LENGTH + 1), 'POST'), 'POST /api')
  isTooLongJson(t, await get(targetOf('/over-ons/_payload.json', 20_000)), 'a payload')
  isTooLongJson(t, await get(`/${'a'.repeat(MAX_SITE_PATH_LENGTH)}/_payload.json`), 'a payload with a long path')
  isTooLongJson(t, await get(targetOf('/over-ons', 20_000), 'DELETE'), 'DELETE')
})

t.test('headers beyond MAX_HEADER_BYTES: 431, beside a target of any length; a head beyond what the parser reads: 431', async (t) => {
  const big = `X-Big: ${'y'.repeat(MAX_HEADER_BYTES)}\r\n`
  for (const [label, answer] of [
    ['short target', await get('/', 'GET', big)],
    ['long target', await get(targetOf('/', 2_000), 'GET', big)],
    ['beyond the parser', await get(targetOf('/', MAX_REQUEST_HEAD_BYTES + 1))],
  ] as const) {
    t.equal(answer.status, 431, `${label}: 431`)
    t.equal(JSON.parse(answer.body).errors[0].extensions.code, 'HEADERS_TOO_LARGE', `${label}: the JSON error`)
    t.ok(answer.headers['content-security-policy'], `${label}: with a policy`)
  }
  const fits = await get('/', 'GET', `X-Big: ${'y'.repeat(MAX_HEADER_BYTES - 200)}\r\n`)
  t.equal(fits.status, 200, 'headers just within the bound: the page')
  t.equal((await get('/')).headers['x-cache'], 'HIT', 'the page is stored: a plain request is a page-cache hit')
  const onStored = await get('/', 'GET', big)
  t.equal(onStored.status, 431, 'a stored page with headers too large: 431 all the same, not a hit')
  isTooLongPage(t, await get(targetOf('/', 20_000).replace('?q=', '?')), 'a long query on the path of a stored page')
})
