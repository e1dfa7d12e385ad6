import type { ServerResponse } from 'node:http'
import t from 'tap'
import { RenderBody } from '../../gateway/pages/render-body.ts'
import { type RenderResponse, RendererPool } from '../../gateway/renderers/renderer-pool.ts'
import { RENDERER_BUILD_HEADER } from '../../shared/constants.ts'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION } from '../../shared/render-protocol/index.ts'
import { listenOnLoopback } from '../helpers/ports.ts'

// Gateways and renderers of one release speak one render protocol: the pool sends its renders to renderers of its own.

/** What a renderer of this release puts on every answer, and its health check's answer. */
const MARK = { [RENDERER_BUILD_HEADER]: 'test-build', [RENDER_PROTOCOL_HEADER]: RENDER_PROTOCOL_VERSION }
const HEALTHY = `{"status":"ok","build":"test-build","protocol":"${RENDER_PROTOCOL_VERSION}"}`

/** A render request's body: the stand-ins do not read it. */
const BODY = RenderBody.of('{}\n[]')

async function renderText(pool: RendererPool): Promise<{ status: number; text: string }> {
  const response: RenderResponse = await pool.render('/', { accept: 'text/html' }, BODY)
  return { status: response.statusCode, text: Buffer.isBuffer(response.body) ? response.body.toString('utf8') : '(streamed)' }
}

t.test('a renderer of another render protocol (another release) is sent no render: the renders go to one of this release, none marked down', async (t) => {
  for (const [release, protocol, answer] of [
    ['the next release', '3', (res: ServerResponse) => res.writeHead(503, { 'content-type': 'application/json', [RENDERER_BUILD_HEADER]: 'next', [RENDER_PROTOCOL_HEADER]: '3' }).end('{"errors":[{"message":"render protocol","extensions":{"code":"RENDER_PROTOCOL_MISMATCH"}}]}')],
    ['a release before the version', undefined, (res: ServerResponse) => res.writeHead(400, { 'content-type': 'application/json', [RENDERER_BUILD_HEADER]: 'old' }).end('{"errors":[]}')],
  ] as const) {
    const seen: string[] = []
    const other = await listenOnLoopback(t, (req, res) => {
      seen.push(String(req.url))
      if (req.url === '/healthz') return void res.writeHead(200, { 'content-type': 'application/json', [RENDERER_BUILD_HEADER]: 'other' }).end(JSON.stringify({ status: 'ok', build: 'other', ...(protocol ? { protocol } : {}) }))
      answer(res)
    })
    const ours = await listenOnLoopback(t, (req, res) => {
      if (req.url === '/healthz') return void res.writeHead(200, { 'content-type': 'application/json', ...MARK }).end(HEALTHY)
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...MARK }).end('<p>ours</p>')
    })
    const changes: string[] = []
    const mismatches: string[] = []
    const pool = new RendererPool([new URL(`http://127.0.0.1:${other}`), new URL(`http://127.0.0.1:${ours}`)], 2000, {
      probeIntervalMs: 60_000,
      dnsRefreshMs: 60_000,
      onMemberChange: (origin, up, reason) => changes.push(`${origin} ${up ? 'up' : 'down'} ${reason}`),
      onProtocolMismatch: (_origin, said) => mismatches.push(said ?? '(none)'),
    })
    t.teardown(() => pool.close())
    for (let i = 0; i < 4; i++) t.same(await renderText(pool), { status: 200, text: '<p>ours</p>' }, `${release}: every page from a renderer of this release`)
    t.same(seen, ['/'], `${release}: asked once, then skipped`)
    t.same(mismatches, [protocol ?? '(none)'], `${release}: told, with the version it said`)
    t.same(changes, [], `${release}: marked down by nobody`)
    t.equal(await pool.healthy(), true)
    t.same(pool.list().map((member) => member.sameProtocol), [false, true], `${release}: its health check says the same`)

    const alone = new RendererPool([new URL(`http://127.0.0.1:${other}`)], 2000, { probeIntervalMs: 60_000, dnsRefreshMs: 60_000 })
    t.teardown(() => alone.close())
    await t.rejects(alone.render('/', { accept: 'text/html' }, BODY), { name: 'RenderProtocolMismatchError' }, `${release}: alone, the render fails (a stored page stands in)`)
  }
})
