import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { purge as sendPurge } from '../helpers/http.ts'
import { PAIR_PURGE_SECRET, nextEvent, startSharedPair, tierOf } from '../helpers/redis.ts'

const pair = await startSharedPair()
t.teardown(() => pair.close())

const get = async (base: string, path: string) => {
  const response = await request(`${base}${path}`)
  return { status: response.statusCode, cache: response.headers['x-cache'], text: await response.body.text() }
}
const purge = (base: string, body: unknown) => sendPurge(base, body, { secret: PAIR_PURGE_SECRET })

t.test('a purge on one gateway reaches the other: new content, page and payload', async (t) => {
  const payloadPath = '/werken-bij/_payload.json'
  const first = await get(pair.a.url, payloadPath)
  t.equal(first.cache, 'MISS')
  t.equal((await get(pair.b.url, payloadPath)).cache, 'HIT', 'the other gateway has it from Redis')
  await get(pair.b.url, '/werken-bij')
  t.equal((await get(pair.b.url, '/werken-bij')).cache, 'HIT', 'and keeps the page')

  // The CMS changes a job's title; Craft's webhook then purges the jobs section on gateway a.
  const original = await request(pair.upstream.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: createOperations(DEFAULT_SITE_HANDLE).JobList, variables: { site: DEFAULT_SITE_HANDLE }, operationName: 'JobList' }),
  })
  const body = (await original.body.json()) as { data: { entries: { title: string }[] } }
  const oldTitle = body.data.entries[0]?.title ?? ''
  t.ok(oldTitle.length > 0 && first.text.includes(oldTitle))
  body.data.entries[0]!.title = 'Gewijzigde vacature'
  pair.upstream.behave = (call) => (call.operationName === 'JobList' ? { kind: 'answer', status: 200, body: JSON.stringify(body) } : { kind: 'pass' })
  t.teardown(() => {
    pair.upstream.behave = () => ({ kind: 'pass' })
  })
  t.equal((await get(pair.b.url, payloadPath)).text.includes(oldTitle), true, 'before the purge b serves what it has')

  const received = nextEvent(tierOf(pair.b), 'purge', 'b applies the purge of jobs')
  const started = performance.now()
  const answer = await purge(pair.a.url, { sections: ['jobs'], hard: true })
  t.equal(answer.status, 200)
  t.equal(answer.json.shared, 'ok', 'Redis purged and the others told')
  await received
  t.comment(`b applied the purge ${Math.round(performance.now() - started)} ms after it was asked of a`)
  t.match((await get(pair.b.url, payloadPath)).text, 'Gewijzigde vacature', 'b serves the new payload')
  t.equal(pair.b.gateway.pageCache.get('/werken-bij'), undefined, 'b dropped the page')
  const page = await get(pair.b.url, '/werken-bij')
  t.match(page.text, 'Gewijzigde vacature', 'b renders the new content')
  t.notMatch(page.text, oldTitle)
})

t.test('a soft purge (the default) reaches the other gateway soft: its stored page is served STALE while one render refreshes it', async (t) => {
  await get(pair.b.url, '/kantoren')
  t.equal((await get(pair.b.url, '/kantoren')).cache, 'HIT', 'b holds the page')
  const received = nextEvent(tierOf(pair.b), 'purge', 'b applies the soft purge of establishments')
  const answer = await purge(pair.a.url, { sections: ['establishments'] })
  t.equal(answer.json.hard, false)
  t.equal(answer.json.shared, 'ok')
  await received
  t.ok(pair.b.gateway.pageCache.refreshablePage('/kantoren'), 'b marked its page stale rather than dropping it')
  t.equal((await get(pair.b.url, '/kantoren')).cache, 'STALE', 'and serves it at once')
})

t.test('purging everything on b empties a\'s memory and Redis', async (t) => {
  await get(pair.a.url, '/kantoren/_payload.json')
  await get(pair.a.url, '/kantoren')
  await get(pair.a.url, '/kantoren')
  t.ok(pair.a.gateway.cache.size > 0 && pair.a.gateway.pageCache.size > 0)
  const received = nextEvent(tierOf(pair.a), 'purge', 'a applies the purge of everything')
  const answer = await purge(pair.b.url, { hard: true })
  t.equal(answer.json.shared, 'ok')
  await received
  t.equal(pair.a.gateway.cache.size, 0, 'a\'s query cache is empty')
  t.equal(pair.a.gateway.pageCache.size, 0, 'and its page cache')
  t.equal((await pair.redis.client.keys(`${DEFAULT_SITE_HANDLE}:q:*`)).length, 0, 'no entries left in Redis')
  t.equal((await get(pair.a.url, '/kantoren/_payload.json')).cache, 'MISS')
})
