import t from 'tap'
import { request } from 'undici'
import { startSystem } from '../helpers/system.ts'

// Page cache off: every request is rendered, as for a miss, a preview-free long tail or a purge.
const system = await startSystem({ PAGE_CACHE: 'false' })
t.teardown(() => system.close())
const { gateway } = system

/** How often the gateway built a payload, by part, while `fn` ran. */
async function buildsDuring<T>(fn: () => Promise<T>): Promise<{ result: T; builds: string[] }> {
  const builds: string[] = []
  const original = gateway.payloads.build.bind(gateway.payloads)
  gateway.payloads.build = (input) => {
    builds.push(input.part)
    return original(input)
  }
  try {
    return { result: await fn(), builds }
  } finally {
    gateway.payloads.build = original
  }
}

async function page(path: string): Promise<{ status: number; html: string; cacheTag: string }> {
  const response = await request(`${system.url}${path}`)
  return { status: response.statusCode, html: await response.body.text(), cacheTag: String(response.headers['cache-tag'] ?? '') }
}

async function queryHits(): Promise<number> {
  const text = await (await request(`${system.internalUrl}/metrics`)).body.text()
  const line = text.split('\n').find((l) => l.startsWith('cache_lookups_total{cache="query",result="HIT"'))
  return Number(line?.split(' ').pop() ?? 0)
}

const withoutNonces = (html: string): string => html.replace(/nonce="[^"]*"/g, '')

t.test('a page rendered again from unchanged answers is not built again, and comes out the same', async (t) => {
  // The very first render finds the latest news not cached yet and streams it: not a whole page to reuse.
  await page('/')
  const hitsOf = async <T>(fn: () => Promise<T>): Promise<{ result: T; hits: number }> => {
    const before = await queryHits()
    const result = await fn()
    return { result, hits: (await queryHits()) - before }
  }
  const first = await hitsOf(() => buildsDuring(() => page('/')))
  t.same(first.result.result.status, 200)
  t.ok(first.result.builds.includes('primary'), 'the render after it builds its payload, whole')
  const again = await hitsOf(() => buildsDuring(() => page('/')))
  t.same(again.result.builds, [], 'the next render builds none')
  t.ok(withoutNonces(again.result.result.html) === withoutNonces(first.result.result.html), 'the same page')
  t.equal(again.result.result.cacheTag, first.result.result.cacheTag, 'with the same cache tags')
  t.ok(again.result.result.cacheTag.includes('entry:'), 'tags of the entries shown')
  t.ok(first.hits > 1, `the built render counted its answers as query-cache hits (${first.hits})`)
  t.equal(again.hits, first.hits, 'the reused render counts the same hits')
})

t.test('an answer purged or replaced since: the page is built again', async (t) => {
  await page('/over-ons')
  await page('/over-ons')
  t.same((await buildsDuring(() => page('/over-ons'))).builds, [], 'reused while nothing changed')
  gateway.cache.purge()
  const afterPurge = await buildsDuring(() => page('/over-ons'))
  t.equal(afterPurge.result.status, 200)
  t.ok(afterPurge.builds.includes('primary'), 'a purge makes the next render build its payload')
  t.same((await buildsDuring(() => page('/over-ons'))).builds, [], 'and the one after reuses it again')
})

t.test('new documents for Craft (its schema learnt again): nothing built under the old ones is reused', async (t) => {
  await page('/kantoren')
  await page('/kantoren')
  t.same((await buildsDuring(() => page('/kantoren'))).builds, [])
  const content = gateway.content as unknown as { generation: number; useOperations: (...args: unknown[]) => void; byName: Map<string, { query: string }> }
  const before = content.generation
  const operations = Object.fromEntries([...content.byName.entries()].map(([name, operation]) => [name, operation.query]))
  content.useOperations(operations)
  t.equal(content.generation, before + 1)
  const rebuilt = await buildsDuring(() => page('/kantoren'))
  t.ok(rebuilt.builds.includes('primary'), 'built again under the new documents')
})

t.test('a preview is never served from a live page\'s reused render', async (t) => {
  await page('/over-ons')
  const preview = await buildsDuring(async () => {
    const response = await request(`${system.url}/over-ons`, { headers: { 'x-craft-token': 'an-editors-preview-token' } })
    await response.body.dump()
    return response.statusCode
  })
  t.ok(preview.builds.length > 0, 'a preview builds its own payload')
})

t.test('redirects are decided at once while the CMS\'s rules are the fresh cached answer, and looked up again once not', async (t) => {
  const matches: string[] = []
  const original = gateway.redirects.match.bind(gateway.redirects)
  gateway.redirects.match = (path, context, log) => {
    matches.push(path)
    return original(path, context, log)
  }
  t.teardown(() => {
    gateway.redirects.match = original
  })
  const redirected = async (path: string) => {
    const response = await request(`${system.url}${path}`)
    await response.body.dump()
    return { status: response.statusCode, location: response.headers.location }
  }
  await redirected('/schade')
  matches.length = 0
  t.same(await redirected('/schade'), { status: 301, location: '/onze-dienstverlening/schade-melden' }, 'the CMS\'s rule, decided at once')
  t.equal((await page('/over-ons')).status, 200, 'a page without a rule is rendered')
  t.same(matches, [], 'no lookup waited on')
  gateway.cache.purge()
  t.same(await redirected('/schade'), { status: 301, location: '/onze-dienstverlening/schade-melden' }, 'the same rule after a purge')
  t.same(matches, ['/schade'], 'looked up again: the answer it was decided from is gone')
})
