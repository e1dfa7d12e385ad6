import t from 'tap'
import { QueryCache } from '../../gateway/cache/query-cache.ts'
import type { CraftClient, UpstreamAnswer, UpstreamRequest } from '../../gateway/craft/client.ts'
import { ContentService, MAX_VARIABLES_BYTES, MAX_VARIABLES_DEPTH, checkVariables } from '../../gateway/craft/content-service.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'

const live = { token: undefined, preview: false }
const site = DEFAULT_SITE_HANDLE

/** A content service over a fake Craft that answers what the test says, with caches on a clock of their own. */
function service(answer: (call: UpstreamRequest) => unknown) {
  let now = 1_000_000
  const options = { maxEntries: 100, maxBytes: 1_000_000, ttlMs: 1000, staleWhileRevalidateMs: 0, staleIfErrorMs: 60_000, now: () => now }
  const caches = { pages: new QueryCache(options), api: new QueryCache(options) }
  const calls: UpstreamRequest[] = []
  const client = {
    query: async (call: UpstreamRequest): Promise<UpstreamAnswer> => {
      calls.push(call)
      const body = answer(call)
      return { status: 200, body: body as UpstreamAnswer['body'], raw: Buffer.from(JSON.stringify(body)) }
    },
  } as unknown as CraftClient
  const operations = {
    ...createOperations(site),
    JobList: 'query JobList($site: [String]) { jobs: entries(section: "jobs", site: $site) { id } }',
  }
  return { content: new ContentService(client, caches, operations), caches, calls, advance: (ms: number) => (now += ms) }
}

t.test('an answer without the fields the operation selects is broken: never stored, a stale entry stands in', async (t) => {
  let body: unknown = { data: { entries: [], entryCount: 0 } }
  const { content, caches, advance } = service(() => body)
  const first = await content.runNamed('ArticleList', { site, limit: 10, offset: 0 }, live)
  t.equal(first.status, 'MISS')
  advance(1500)
  body = { data: { entries: [] } }
  const stale = await content.runNamed('ArticleList', { site, limit: 10, offset: 0 }, live)
  t.equal(stale.status, 'STALE', 'the last good answer stands in')
  t.same(stale.answer.body, { data: { entries: [], entryCount: 0 } })
  caches.pages.purge()
  await t.rejects(content.runNamed('ArticleList', { site, limit: 10, offset: 0 }, live), { code: 'UPSTREAM_BAD_RESPONSE', statusCode: 502 })
  body = { data: {} }
  await t.rejects(content.runNamed('ArticleList', { site, limit: 10, offset: 0 }, live), { code: 'UPSTREAM_BAD_RESPONSE' })
  t.equal(caches.pages.size, 0, 'nothing stored')
})

t.test('null is an answer ("not found"), and an alias is the field\'s name in the answer', async (t) => {
  const { content, caches } = service((call) => (call.operationName === 'JobList' ? { data: { jobs: [] } } : { data: { entry: null } }))
  t.equal((await content.runNamed('JobBySlug', { site, slug: 'geen' }, live)).status, 'MISS')
  t.equal((await content.runNamed('JobBySlug', { site, slug: 'geen' }, live)).status, 'HIT')
  t.equal((await content.runNamed('JobList', { site }, live)).status, 'MISS')
  t.equal(caches.pages.size, 2)
})

t.test('/api: answered from the pages\' cache while fresh there, else from a cache of its own', async (t) => {
  const { content, caches, calls, advance } = service(() => ({ data: { entry: null } }))
  const operation = content.resolve(createOperations(site).JobBySlug)
  await content.run(operation, { site, slug: 'a' }, live)
  const fromPages = await content.run(operation, { site, slug: 'a' }, live, 'api')
  t.equal(fromPages.status, 'HIT')
  t.equal(calls.length, 1)
  t.equal(caches.api.size, 0, 'nothing stored for /api')
  t.equal((await content.run(operation, { site, slug: 'b' }, live, 'api')).status, 'MISS')
  t.equal(caches.api.size, 1)
  t.equal(caches.pages.size, 1, 'the pages\' cache untouched')
  advance(1500)
  t.equal((await content.run(operation, { site, slug: 'a' }, live, 'api')).status, 'MISS', 'a stale page entry is not served to /api')
  t.equal(caches.api.size, 2)
})

t.test('variables: declared ones only, and within depth and size bounds', async (t) => {
  const { content, calls } = service(() => ({ data: { entry: null } }))
  const operation = content.resolve(createOperations(site).JobBySlug)
  await t.rejects(content.run(operation, { site, slug: 'a', limit: 1 }, live, 'api'), { code: 'VARIABLE_NOT_DECLARED', statusCode: 400 })
  t.equal(calls.length, 0, 'refused before any call')

  const inLists = (lists: number): unknown => {
    let value: unknown = 'x'
    for (let i = 0; i < lists; i++) value = [value]
    return value
  }
  t.doesNotThrow(() => checkVariables(operation, { slug: inLists(MAX_VARIABLES_DEPTH - 1) }), 'the variables and seven lists: eight levels')
  t.throws(() => checkVariables(operation, { slug: inLists(MAX_VARIABLES_DEPTH) }), { code: 'VARIABLES_TOO_DEEP' })
  t.throws(() => checkVariables(operation, { slug: inLists(100_000) }), { code: 'VARIABLES_TOO_DEEP' })

  const fill = (bytes: number) => ({ slug: 'x'.repeat(bytes - JSON.stringify({ slug: '' }).length) })
  t.doesNotThrow(() => checkVariables(operation, fill(MAX_VARIABLES_BYTES)))
  t.throws(() => checkVariables(operation, fill(MAX_VARIABLES_BYTES + 1)), { code: 'VARIABLES_TOO_LARGE' })
})
