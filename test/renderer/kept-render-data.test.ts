import t from 'tap'
import { request } from 'undici'
import { payloadJson } from '../../gateway/payload/payload-json.ts'
import { KeptRenderData, type ReadyRenderData } from '../../renderer/server/kept-render-data.ts'
import { PAYLOAD_SUFFIX, RENDER_SIGNATURE_HEADER } from '../../shared/constants.ts'
import type { PagePayload } from '../../shared/payload.ts'
import {
  RENDER_DATA_KEPT_HEADER,
  RENDER_DATA_UNKNOWN,
  RENDER_DATA_UNKNOWN_STATUS,
  RENDER_REFERENCE_CONTENT_TYPE,
  RENDER_REQUEST_CONTENT_TYPE,
  encodeRenderRequest,
} from '../../shared/render-protocol/index.ts'
import { RenderSigner, contentDigest } from '../../shared/render-protocol/index.ts'
import { scriptSafe } from '../../shared/script-json.ts'
import { signedHeaders } from '../helpers/render-signing.ts'
import { startSystem } from '../helpers/system.ts'

const system = await startSystem({ PAGE_CACHE: 'false' })
t.teardown(() => system.close())

const signer = new RenderSigner(system.renderSecret ?? '')

/** A full render request as the gateway sends it: the body, signed for the path; and the body's digest, by which its data is kept. */
function postBody(path: string, body: string) {
  const headers = signedHeaders(signer, 'POST', path, { 'content-type': RENDER_REQUEST_CONTENT_TYPE }, body)
  return { digest: contentDigest(body), answer: request(`${system.rendererUrl}${path}`, { method: 'POST', headers, body }) }
}

/** A reference as the gateway sends it: the full body's digest as the body, signed like any render request; `signature` forges its signature. */
function postReference(path: string, digest: string, signature?: string) {
  const headers = signedHeaders(signer, 'POST', path, { 'content-type': RENDER_REFERENCE_CONTENT_TYPE }, digest)
  if (signature !== undefined) headers[RENDER_SIGNATURE_HEADER] = signature
  return request(`${system.rendererUrl}${path}`, { method: 'POST', headers, body: digest })
}

async function payloadOf(path: string, part: 'primary' | 'deferred', query = ''): Promise<PagePayload> {
  const base = path === '/' ? '' : path
  return (await (await request(`${system.url}${base}${PAYLOAD_SUFFIX}?part=${part}${query}`)).body.json()) as PagePayload
}

/** How many render requests took their data from each source, read off the renderer's own /metrics. */
async function dataSources(): Promise<Record<string, number>> {
  const text = await (await request(`${system.rendererUrl}/metrics`)).body.text()
  const counts: Record<string, number> = {}
  for (const [, source, value] of text.matchAll(/^render_data_total\{source="(\w+)"[^}]*\} (\d+)/gm)) counts[source as string] = Number(value)
  return counts
}

/** A page without its per-render nonce, to compare two renders of the same data. */
const withoutNonces = (html: string): string => html.replace(/nonce="[^"]*"/g, 'nonce=""').replace(/'nonce-[^']*'/g, "'nonce-'")

t.test('KeptRenderData: data only for the path it came for, bounded by bytes', async (t) => {
  const dataOf = (size: number): ReadyRenderData => ({ payload: {} as PagePayload, payloadJson: 'x'.repeat(size), tags: [] })
  const memo = new KeptRenderData(64 * 1024)
  t.ok(memo.keep('sig-a', '/a', dataOf(1000)))
  t.ok(memo.get('sig-a', '/a'), 'kept for its path')
  t.equal(memo.get('sig-a', '/b'), undefined, 'not for another path, whatever the digest')
  t.equal(memo.get('sig-b', '/a'), undefined, 'not under another digest')
  t.notOk(memo.keep('sig-huge', '/huge', dataOf(64 * 1024)), 'data larger than the whole memo is not kept')
  for (let i = 0; i < 100; i++) memo.keep(`sig-${i}`, `/p${i}`, dataOf(1000))
  t.ok(memo.bytes <= 64 * 1024, `held ${memo.bytes} bytes, within the bound`)
  t.ok(memo.size < 100, 'older entries made way')
  t.equal(memo.get('sig-a', '/a'), undefined, 'the oldest went first')
  t.ok(memo.get('sig-99', '/p99'), 'the newest is there')
})

t.test('a live page\'s data is kept: the same body again is not decoded again, and a reference renders the same page', async (t) => {
  const primary = await payloadOf('/', 'primary')
  const deferred = (await payloadOf('/', 'deferred')).data
  const body = encodeRenderRequest(payloadJson(primary), [], JSON.stringify(deferred))
  const before = await dataSources()

  const first = postBody('/', body)
  const firstAnswer = await first.answer
  const firstPage = await firstAnswer.body.text()
  t.equal(firstAnswer.statusCode, 200)
  t.equal(firstAnswer.headers[RENDER_DATA_KEPT_HEADER], '1', 'the renderer says it kept the data')
  t.match(firstPage, /data-loaded="true"/, 'the deferred part is in the page')

  const again = postBody('/', body)
  const againAnswer = await again.answer
  const againPage = await againAnswer.body.text()
  t.equal(againAnswer.headers[RENDER_DATA_KEPT_HEADER], '1')
  t.equal(withoutNonces(againPage), withoutNonces(firstPage), 'the same page from the kept data')

  const byReference = await postReference('/', first.digest)
  const referencePage = await byReference.body.text()
  t.equal(byReference.statusCode, 200)
  t.equal(withoutNonces(referencePage), withoutNonces(firstPage), 'the same page from a reference')
  t.not(/nonce="([^"]+)"/.exec(referencePage)?.[1], /nonce="([^"]+)"/.exec(firstPage)?.[1], 'with a nonce of its own')

  const after = await dataSources()
  t.equal((after.body ?? 0) - (before.body ?? 0), 1, 'one body decoded')
  t.equal((after.kept ?? 0) - (before.kept ?? 0), 1, 'the repeated body taken from the kept data')
  t.equal((after.reference ?? 0) - (before.reference ?? 0), 1, 'the reference served from the kept data')
})

t.test('the deferred data is embedded as it came when cleaning leaves it unchanged', async (t) => {
  const primary = await payloadOf('/', 'primary')
  const deferred = (await payloadOf('/', 'deferred')).data
  // Key order and spacing the renderer would not produce itself: embedded as sent, it stays as sent.
  const sent = JSON.stringify(deferred, null, 1).replace(/\n/g, '')
  const page = await (await postBody('/', encodeRenderRequest(payloadJson(primary), [], sent)).answer).body.text()
  t.ok(page.includes(scriptSafe(sent)), 'the deferred line is the script\'s JSON')
})

t.test('a reference the renderer cannot honour gets 409 RENDER_DATA_UNKNOWN, a forged one 403, an oversized one 413', async (t) => {
  const before = await dataSources()
  const unknown = await postReference('/', contentDigest('never sent'))
  t.equal(unknown.statusCode, RENDER_DATA_UNKNOWN_STATUS)
  t.match(await unknown.body.json(), { errors: [{ extensions: { code: RENDER_DATA_UNKNOWN } }] })

  // Kept for '/', named for '/over-ons' with a valid signature for that path: the data is not that page's.
  const primary = await payloadOf('/', 'primary')
  const home = postBody('/', encodeRenderRequest(payloadJson(primary), []))
  await (await home.answer).body.dump()
  const elsewhere = await postReference('/over-ons', home.digest)
  t.equal(elsewhere.statusCode, RENDER_DATA_UNKNOWN_STATUS, 'a reference is honoured only for the path its data came for')
  await elsewhere.body.dump()

  const forged = await postReference('/', home.digest, 'not-the-gateways-signature')
  t.equal(forged.statusCode, 403, 'a reference is signed like any render request')
  await forged.body.dump()

  const oversized = 'x'.repeat(4096)
  const large = await postReference('/', oversized)
  t.equal(large.statusCode, 413, 'a reference is a digest, not a body')
  await large.body.dump()

  const after = await dataSources()
  t.equal((after.unknown_reference ?? 0) - (before.unknown_reference ?? 0), 2, 'both honest misses counted')
})

t.test('a preview\'s data is never kept', async (t) => {
  const primary = await payloadOf('/', 'primary')
  const body = encodeRenderRequest(payloadJson({ ...primary, preview: true }), [])
  const preview = postBody('/', body)
  const answer = await preview.answer
  await answer.body.dump()
  t.equal(answer.statusCode, 200)
  t.equal(answer.headers[RENDER_DATA_KEPT_HEADER], undefined, 'not said to be kept')
  const reference = await postReference('/', preview.digest)
  t.equal(reference.statusCode, RENDER_DATA_UNKNOWN_STATUS, 'and so cannot be named')
  await reference.body.dump()
})

t.test('through the gateway: the second render of a page goes as a reference', async (t) => {
  await (await request(`${system.url}/over-ons`)).body.dump()
  const before = await dataSources()
  const response = await request(`${system.url}/over-ons`)
  const html = await response.body.text()
  t.equal(response.statusCode, 200)
  t.match(html, /<h1[^>]*>/)
  const after = await dataSources()
  t.equal((after.reference ?? 0) - (before.reference ?? 0), 1, 'the renderer was sent a reference')
  t.equal((after.body ?? 0) - (before.body ?? 0), 0, 'and decoded no body')
})
