import { type ServerResponse, createServer } from 'node:http'
import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION } from '../../shared/render-protocol/index.ts'
import t from 'tap'
import type * as Tap from 'tap'
import { request } from 'undici'
import { RENDERER_BUILD_HEADER } from '../../shared/constants.ts'
import { h1Of } from '../helpers/html.ts'
import { get as getUrl } from '../helpers/http.ts'
import { type System, startSystem } from '../helpers/system.ts'

// A page's TTL of 0: stored, never fresh, so every request asks a renderer first, and a stored page can only stand in.
t.test('with every renderer down, a stored page past its TTL stands in (X-Cache: STALE) while its payload still answers', async (t) => {
  const system = await startSystem({ PAGE_CACHE_TTL_MS: '0' })
  t.teardown(() => system.close())
  const get = (path: string, headers: Record<string, string> = {}) => getUrl(`${system.url}${path}`, { headers })
  const rendered = await get('/kantoren')
  t.equal(rendered.status, 200)
  t.equal(rendered.headers['x-cache'], 'MISS')
  t.equal(system.gateway.pageCache.size, 1, 'stored')
  const again = await get('/kantoren')
  t.equal(again.headers['x-cache'], 'MISS', 'a TTL of 0: rendered again while a renderer answers')

  await system.renderer.close()
  const stale = await get('/kantoren')
  t.equal(stale.status, 200, 'no renderer, but the stored page')
  t.equal(stale.headers['x-cache'], 'STALE')
  t.equal(h1Of(stale.body), h1Of(rendered.body))
  t.equal(stale.headers['cache-control'], 'private, no-cache', 'no shared cache keeps a stale page')
  t.match(stale.headers['content-security-policy'], /^default-src 'self'; script-src 'self'/, "with the page's own policy, as stored")
  t.equal((await get('/kantoren/_payload.json')).status, 200, 'the payload answers as before')

  const never = await get('/over-ons')
  t.equal(never.status, 503, 'a page never stored: the Dutch 503 page')
  t.match(never.body, /niet beschikbaar/)
  const preview = await get('/kantoren?x-craft-preview=1&token=some-token')
  t.equal(preview.status, 503, 'a preview never gets a stored page')
})

t.test('past CACHE_STALE_IF_ERROR_MS no stored page stands in', async (t) => {
  const system = await startSystem({ PAGE_CACHE_TTL_MS: '0', CACHE_STALE_IF_ERROR_MS: '0' })
  t.teardown(() => system.close())
  const first = await request(`${system.url}/kantoren`)
  await first.body.dump()
  t.equal(first.statusCode, 200)
  await system.renderer.close()
  const down = await request(`${system.url}/kantoren`)
  t.equal(down.statusCode, 503)
  await down.body.dump()
})

/**
 * A system whose /kantoren was rendered and stored (TTL 0: every request asks a renderer first), then its renderer
 * closed and `answer` listening on the renderer's port instead; the page as it was rendered.
 */
async function withRendererReplaced(t: Tap.Test, answer: (res: ServerResponse) => void): Promise<{ system: System; rendered: string }> {
  const system = await startSystem({ PAGE_CACHE_TTL_MS: '0' })
  t.teardown(() => system.close())
  const first = await request(`${system.url}/kantoren`)
  const rendered = await first.body.text()
  t.equal(first.statusCode, 200)
  const address = system.renderer.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  await system.renderer.close()
  const stranger = createServer((_req, res) => answer(res))
  await new Promise<void>((resolve) => stranger.listen(port, '127.0.0.1', resolve))
  t.teardown(() => {
    stranger.closeAllConnections()
    return new Promise((resolve) => stranger.close(resolve))
  })
  return { system, rendered }
}

/** /kantoren is answered by its stored page (the one `rendered`), not by what stands at the renderer's address. */
async function storedPageAnswers(t: Tap.Test, url: string, rendered: string, not: string): Promise<void> {
  const answer = await request(`${url}/kantoren`)
  const body = await answer.body.text()
  t.equal(answer.statusCode, 200, not)
  t.equal(answer.headers['x-cache'], 'STALE', 'the stored page')
  t.equal(h1Of(body), h1Of(rendered))
}

t.test("a stranger at the renderer's address (a proxy's empty 404) is no render: the stored page stands in and stays stored", async (t) => {
  // What answered a gateway cut from the renderers' network in issue 38's Swarm run: the sandbox's egress proxy.
  const { system, rendered } = await withRendererReplaced(t, (res) => void res.writeHead(404, { server: 'keryx', 'content-length': 0 }).end())
  for (let i = 0; i < 2; i++) await storedPageAnswers(t, system.url, rendered, 'not its 404')
  t.ok(system.gateway.pageCache.stale('/kantoren'), 'still stored: a 404 from no renderer does not drop the page')
})

t.test("a renderer's own refusal (403, its JSON, no page) is no page: the stored page stands in and stays stored; else the 503 page", async (t) => {
  // What a renderer answers a render whose signature expired on the way (renderer/errors.ts): its mark, no CSP nonce.
  const { system, rendered } = await withRendererReplaced(t, (res) => {
    const body = JSON.stringify({ statusCode: 403, code: 'FORBIDDEN', error: 'Forbidden', message: 'The render request is not signed by the gateway' })
    res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), [RENDERER_BUILD_HEADER]: 'test-build', [RENDER_PROTOCOL_HEADER]: RENDER_PROTOCOL_VERSION }).end(body)
  })
  await storedPageAnswers(t, system.url, rendered, 'not its 403')
  t.ok(system.gateway.pageCache.stale('/kantoren'), 'still stored')
  const never = await request(`${system.url}/over-ons`)
  const text = await never.body.text()
  t.equal(never.statusCode, 503, 'a page never stored: the Dutch 503 page, not the JSON 403')
  t.match(text, /niet beschikbaar/)
})
