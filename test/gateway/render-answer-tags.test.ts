import t, { type Test } from 'tap'
import { request } from 'undici'
import { answerHeaderTags, answerTags } from '../../gateway/renderers/answer-tags.ts'
import { PAYLOAD_SUFFIX, REQUEST_ID_HEADER } from '../../shared/constants.ts'
import { MAX_RENDER_TAGS, RENDER_TAGS_HEADER } from '../../shared/render-protocol/index.ts'
import { listenOnLoopback } from '../helpers/ports.ts'
import { type System, startSystem } from '../helpers/system.ts'

// A page's cache tags are what its render's answer says it showed: the gateway stores the page by them, and by
// nothing it kept beside the render.

/** The tags of an answer's Cache-Tag header. */
const cacheTagsOf = (headers: Record<string, unknown>): string[] => String(headers['cache-tag'] ?? '').split(',').filter(Boolean)

/**
 * A hop between the gateway and its renderer that passes every answer on with its tags changed by `change`
 * (undefined: the header left out), as a renderer that says other tags would. Pages rendered whole only: the hop
 * reads each answer to its end.
 */
async function tagRewritingHop(t: Test, change: (tags: string | undefined) => string | undefined): Promise<(config: { rendererUrls: URL[] }) => void> {
  const target = { origin: '' }
  const port = await listenOnLoopback(t, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
      const body = Buffer.concat(chunks)
      request(`${target.origin}${req.url ?? ''}`, { method: req.method as 'GET' | 'POST', headers, body: body.length > 0 ? body : null }).then(
        async (answer) => {
          const page = Buffer.from(await answer.body.arrayBuffer())
          const passed: Record<string, string> = {}
          for (const [name, value] of Object.entries(answer.headers)) {
            if (typeof value === 'string' && !['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'trailer', RENDER_TAGS_HEADER].includes(name)) passed[name] = value
          }
          const said = answer.headers[RENDER_TAGS_HEADER]
          const tags = change(typeof said === 'string' ? said : undefined)
          if (tags !== undefined) passed[RENDER_TAGS_HEADER] = tags
          res.writeHead(answer.statusCode, { ...passed, 'content-length': String(page.byteLength) }).end(page)
        },
        () => res.writeHead(502).end(),
      )
    })
  })
  return (config) => {
    target.origin = config.rendererUrls[0]?.origin ?? ''
    config.rendererUrls = [new URL(`http://127.0.0.1:${port}`)]
  }
}

/** A page asked twice: the render (MISS) and the page stored from it (HIT), or the second render when none was stored. */
async function missThenAgain(system: System, path: string): Promise<{ miss: Record<string, unknown>; again: Record<string, unknown> }> {
  const miss = await request(`${system.url}${path}`)
  await miss.body.dump()
  const again = await request(`${system.url}${path}`)
  await again.body.dump()
  return { miss: miss.headers, again: again.headers }
}

t.test("a page rendered whole is stored by the tags its answer says, a hostile tag dropped", async (t) => {
  const hostile = ['evil<script>', 'has space', 'x'.repeat(201), 'semi;colon']
  const hop = await tagRewritingHop(t, (tags) => [tags ?? '', 'from-the-answer', ...hostile].filter(Boolean).join(','))
  const system = await startSystem({}, hop)
  t.teardown(() => system.close())
  const { miss, again } = await missThenAgain(system, '/over-ons')
  t.equal(miss['x-cache'], 'MISS')
  t.ok(cacheTagsOf(miss).includes('from-the-answer'), "the fresh page's Cache-Tag is the answer's")
  t.equal(again['x-cache'], 'HIT', 'stored')
  const stored = cacheTagsOf(again)
  t.ok(stored.includes('from-the-answer'), `the stored page's tags are the answer's: ${stored.join(',')}`)
  for (const tag of hostile) t.notOk(stored.some((kept) => kept === tag), `a hostile tag is dropped: ${tag.slice(0, 20)}`)
  const payload = await request(`${system.url}/over-ons${PAYLOAD_SUFFIX}`)
  await payload.body.dump()
  const ofData = cacheTagsOf(payload.headers)
  t.ok(ofData.length > 0, 'the page data has tags')
  t.same(ofData.filter((tag) => !stored.includes(tag)), [], 'every tag of the data it showed, as the renderer was sent them')
})

t.test('an answer that says no tags, or more than the bound, leaves the page unstored', async (t) => {
  for (const [name, change] of [
    ['no tags', () => undefined],
    ['past the bound', () => Array.from({ length: MAX_RENDER_TAGS + 1 }, (_, i) => `entry:${i}`).join(',')],
  ] as const) {
    const hop = await tagRewritingHop(t, change)
    const system = await startSystem({}, hop)
    t.teardown(() => system.close())
    const { miss, again } = await missThenAgain(system, '/over-ons')
    t.equal(miss['x-cache'], 'MISS', name)
    t.equal(again['x-cache'], 'MISS', `${name}: not stored, rendered again`)
    t.ok(
      system.gatewayLogs.lines.some((line) => line.msg === 'the render did not say the tags of the page; not cached'),
      `${name}: logged`,
    )
  }
})

t.test('a streamed page whose deferred data the renderer fetched is stored with that data\'s tags too, from its trailer', async (t) => {
  const system = await startSystem({ LOG_LEVEL: 'debug' })
  t.teardown(() => system.close())
  // A cold query cache: the home page's deferred data is not at hand, so the renderer asks the gateway for it.
  const miss = await request(`${system.url}/`, { headers: { [REQUEST_ID_HEADER]: 'streamed-tags-1' } })
  await miss.body.dump()
  t.equal(miss.headers['x-cache'], 'MISS')
  const asked = system.gatewayLogs.lines
    .filter((line) => line.requestId === 'streamed-tags-1' && line.msg === 'incoming request')
    .map((line) => String((line.req as { url?: string } | undefined)?.url ?? ''))
  t.ok(asked.includes(`${PAYLOAD_SUFFIX}?part=deferred`), `the renderer fetched the deferred data: ${asked.join(' ')}`)
  const again = await request(`${system.url}/`)
  await again.body.dump()
  t.equal(again.headers['x-cache'], 'HIT', 'stored')
  const stored = cacheTagsOf(again.headers)
  const deferred = await request(`${system.url}${PAYLOAD_SUFFIX}?part=deferred`)
  await deferred.body.dump()
  const primary = await request(`${system.url}${PAYLOAD_SUFFIX}?part=primary`)
  await primary.body.dump()
  const ofDeferred = cacheTagsOf(deferred.headers)
  const ofPrimary = cacheTagsOf(primary.headers)
  const onlyDeferred = ofDeferred.filter((tag) => !ofPrimary.includes(tag))
  t.ok(onlyDeferred.length > 0, `the deferred data has tags of its own (${onlyDeferred.join(',')})`)
  t.same([...ofPrimary, ...ofDeferred].filter((tag) => !stored.includes(tag)), [], 'the stored page has the tags of all it showed')
})

t.test('answerTags: the header of a page rendered whole, the trailer of a streamed one; each tag checked', async (t) => {
  t.same(answerTags({ headers: { [RENDER_TAGS_HEADER]: 'jobs,entry:12' }, trailers: {} }), ['jobs', 'entry:12'])
  t.same(answerTags({ headers: { [RENDER_TAGS_HEADER]: '' }, trailers: {} }), [], 'an empty list is a list')
  t.equal(answerTags({ headers: {}, trailers: {} }), undefined, 'none said')
  const streamed = { headers: { trailer: `x-render-outcome, ${RENDER_TAGS_HEADER}`, [RENDER_TAGS_HEADER]: 'home' }, trailers: {} as Record<string, string> }
  t.equal(answerTags(streamed), undefined, 'a streamed page: nothing before its trailer')
  t.same(answerHeaderTags(streamed), ['home'], 'but its header says those known when it began')
  streamed.trailers[RENDER_TAGS_HEADER] = 'home,news,entry:7'
  t.same(answerTags(streamed), ['home', 'news', 'entry:7'], 'all of them in the trailer')
  const asFastifySays = { headers: { trailer: `x-render-outcome ${RENDER_TAGS_HEADER}`, [RENDER_TAGS_HEADER]: 'home' }, trailers: { [RENDER_TAGS_HEADER]: 'home,news' } }
  t.same(answerTags(asFastifySays), ['home', 'news'], 'a Trailer header of names separated by spaces')
  t.same(answerTags({ headers: { [RENDER_TAGS_HEADER]: 'jobs,<img src=x>,entry:1 2,jobs,,a\u0000b' }, trailers: {} }), ['jobs'], 'hostile tags dropped, each tag once')
  t.equal(answerTags({ headers: { [RENDER_TAGS_HEADER]: Array.from({ length: MAX_RENDER_TAGS + 1 }, () => 'a').join(',') }, trailers: {} }), undefined, 'past the bound: no list')
  t.equal(answerTags({ headers: { [RENDER_TAGS_HEADER]: ['a', 'b'] }, trailers: {} }), undefined, 'a header given twice: no list')
})
