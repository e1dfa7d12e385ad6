import { type IncomingMessage, type ServerResponse, createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { request } from 'undici'
import { RENDERER_BUILD_HEADER } from '../../shared/constants.ts'
import { startSystem } from '../helpers/system.ts'

/**
 * Bundle files of another build (routes/foreign-assets.ts, RendererPool.fetchAsset): what the gateway takes from
 * a renderer and what it does not. The gateway's renderer is a stand-in in front of the real one: it answers the
 * /assets/ files the test names as the test says and counts them; everything else goes through to the renderer.
 */

/** One byte over the bound of one file taken from a renderer (MAX_ASSET_BYTES in renderers/renderer-requests.ts). */
const OVER_BOUND = 4 * 1024 * 1024 + 1
const files: Record<string, (res: ServerResponse) => void> = {
  '/assets/app-FITSAAAB.js': (res) => res.writeHead(200, { 'content-type': 'text/javascript', 'content-length': '15', [RENDERER_BUILD_HEADER]: 'other' }).end('console.log(1)\n'),
  // Sent chunked: no Content-Length, so no length known before it is read.
  '/assets/app-CHUNKEDA.js': (res) => {
    res.writeHead(200, { 'content-type': 'text/javascript', [RENDERER_BUILD_HEADER]: 'other' })
    res.write('console.log(')
    res.end('2)\n')
  },
  '/assets/app-TOOLARGE.js': (res) => res.writeHead(200, { 'content-type': 'text/javascript', 'content-length': String(OVER_BOUND), [RENDERER_BUILD_HEADER]: 'other' }).end(Buffer.alloc(OVER_BOUND, 0x20)),
}
const asked: Record<string, number> = {}
let renderer: URL | undefined

const standIn = createServer((req: IncomingMessage, res: ServerResponse) => {
  const path = req.url ?? '/'
  if (path.startsWith('/assets/')) {
    asked[path] = (asked[path] ?? 0) + 1
    const answer = files[path]
    if (answer) return answer(res)
    res.writeHead(404, { 'content-type': 'text/plain', [RENDERER_BUILD_HEADER]: 'other' }).end('not found')
    return
  }
  if (!renderer) return void res.writeHead(503).end()
  const upstream = httpRequest(new URL(path, renderer), { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(res)
  })
  upstream.on('error', () => res.destroy())
  req.pipe(upstream)
})
await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve))
t.teardown(() => {
  standIn.closeAllConnections()
  standIn.close()
})
const standInUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`

const system = await startSystem({}, (config) => {
  renderer = config.rendererUrls[0]
  config.rendererUrls = [new URL(standInUrl)]
})
t.teardown(() => system.close())

const get = async (path: string) => {
  const response = await request(`${system.url}${path}`)
  return { status: response.statusCode, type: String(response.headers['content-type']), text: await response.body.text() }
}

t.test('a file the renderer sends with its length, within the bound, is served', async (t) => {
  const file = await get('/assets/app-FITSAAAB.js')
  t.same([file.status, file.text], [200, 'console.log(1)\n'])
  t.match(file.type, 'text/javascript')
})

t.test('a file sent without Content-Length is not taken: the 404 page', async (t) => {
  const file = await get('/assets/app-CHUNKEDA.js')
  t.equal(file.status, 404)
  t.notMatch(file.text, 'console.log(2)')
  t.equal(asked['/assets/app-CHUNKEDA.js'], 1, 'the renderer was asked')
})

t.test('a file over the memory bound is not taken: the 404 page', async (t) => {
  const file = await get('/assets/app-TOOLARGE.js')
  t.equal(file.status, 404)
  t.ok(file.text.length < OVER_BOUND, 'not the file')
  t.equal(asked['/assets/app-TOOLARGE.js'], 1, 'the renderer was asked')
})

t.test('a file no renderer has, asked twice, is asked of the renderers once', async (t) => {
  for (const round of [1, 2]) t.equal((await get('/assets/app-MISSINGA.js')).status, 404, `asked ${round}: the 404 page`)
  t.equal(asked['/assets/app-MISSINGA.js'], 1, 'the second time from what the gateway remembers')
})
