import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { startFaultUpstream } from '../helpers/fault-upstream.ts'
import { startSystem } from '../helpers/system.ts'

const operations = createOperations(DEFAULT_SITE_HANDLE)
const upstream = await startFaultUpstream()
const system = await startSystem({
  CRAFT_API_URL: upstream.url,
  CRAFT_TOKEN: 'site-token',
  CRAFT_SCHEMA_TOKEN: 'schema-secret',
  API_MAX_BODY_BYTES: '4096',
})
t.teardown(async () => {
  await system.close()
  await upstream.close()
})

const post = async (body: string, contentType = 'application/json', headers: Record<string, string> = {}) => {
  const response = await request(`${system.url}/api`, { method: 'POST', body, headers: { 'content-type': contentType, ...headers } })
  return { status: response.statusCode, headers: response.headers, json: (await response.body.json()) as Record<string, any> }
}
const purgeQueryCaches = () => {
  system.gateway.cache.purge()
  system.gateway.apiCache.purge()
}
const jobList = JSON.stringify({ query: operations.JobList, variables: { site: DEFAULT_SITE_HANDLE }, operationName: 'JobList' })

t.test('an allowlisted operation is answered and cached', async (t) => {
  purgeQueryCaches()
  const before = upstream.calls.length
  const first = await post(jobList)
  t.equal(first.status, 200)
  t.equal(first.headers['x-cache'], 'MISS')
  t.ok(Array.isArray(first.json.data.entries) && first.json.data.entries.length >= 3, 'the jobs')
  const second = await post(jobList)
  t.equal(second.headers['x-cache'], 'HIT')
  t.same(second.json, first.json)
  t.equal(upstream.calls.length - before, 1, 'one upstream call for both')
  const call = upstream.calls.at(-1)
  t.equal(call?.token, 'site-token', 'the default token as X-Craft-Token, without a scheme')
  t.equal(call?.authorization, 'Bearer schema-secret', 'the schema token alongside')
})

t.test('the same operation reformatted is still the allowlisted one', async (t) => {
  const spaced = JSON.stringify({ query: `# a comment\n${operations.JobList.replace(/\n/g, '\n\n  ')}`, variables: { site: DEFAULT_SITE_HANDLE } })
  const answer = await post(spaced)
  t.equal(answer.status, 200)
})

t.test('anything not on the allowlist is refused and never forwarded', async (t) => {
  const before = upstream.calls.length
  const unknown = await post(JSON.stringify({ query: '{ entries(section: "jobs") { id title } }' }))
  t.equal(unknown.status, 400)
  t.equal(unknown.json.errors[0].extensions.code, 'OPERATION_NOT_ALLOWED')
  const introspection = await post(JSON.stringify({ query: '{ __schema { types { name } } }' }))
  t.equal(introspection.status, 400)
  t.equal(introspection.json.errors[0].extensions.code, 'OPERATION_NOT_ALLOWED')
  const typename = await post(JSON.stringify({ query: operations.JobList.replace('entries(', '__typename entries(') }))
  t.equal(typename.status, 400, 'a changed allowlisted document is another document')
  t.equal(upstream.calls.length, before, 'nothing reached the upstream')
})

t.test('malformed input: a clear 4xx, nothing forwarded', async (t) => {
  const before = upstream.calls.length
  const cases: [string, string, number, string | RegExp][] = [
    ['{"query": ', 'application/json', 400, /JSON/i],
    ['{}', 'application/json', 400, 'The body has no query'],
    [JSON.stringify({ query: operations.JobList, variables: [1] }), 'application/json', 400, 'variables must be an object'],
    [JSON.stringify({ query: operations.JobList, variables: 'x' }), 'application/json', 400, 'variables must be an object'],
    [JSON.stringify({ query: 'query {' }), 'application/json', 400, /not valid GraphQL/],
    [JSON.stringify([1, 2]), 'application/json', 400, 'must be a JSON object'],
    [JSON.stringify({ query: 'x'.repeat(5000) }), 'application/json', 413, /too large/i],
    ['query=x', 'application/x-www-form-urlencoded', 415, /Content-Type|media type/i],
  ]
  for (const [body, type, status, message] of cases) {
    const answer = await post(body, type)
    t.equal(answer.status, status, `${body.slice(0, 40)} -> ${status}`)
    t.match(answer.json.errors?.[0]?.message, message)
    t.type(answer.json.errors?.[0]?.extensions?.code, 'string', 'with an error code')
  }
  t.equal(upstream.calls.length, before, 'nothing reached the upstream')
})

t.test('responses with errors or from a failing upstream are not stored', async (t) => {
  purgeQueryCaches()
  upstream.behave = () => ({ kind: 'answer', status: 200, body: JSON.stringify({ data: { entries: [] }, errors: [{ message: 'boom' }] }) })
  const withErrors = await post(jobList)
  t.equal(withErrors.status, 200)
  t.equal(withErrors.json.errors[0].message, 'boom')
  upstream.behave = () => ({ kind: 'answer', status: 503, body: '{"errors":[{"message":"maintenance"}]}' })
  const unavailable = await post(jobList)
  t.equal(unavailable.status, 503)
  upstream.behave = () => ({ kind: 'answer', status: 200, body: 'not json at all' })
  const garbage = await post(jobList)
  t.equal(garbage.status, 502)
  t.equal(garbage.json.errors[0].extensions.code, 'UPSTREAM_BAD_RESPONSE')
  upstream.behave = () => ({ kind: 'answer', status: 200, body: '{"data":{}}' })
  const withoutFields = await post(jobList)
  t.equal(withoutFields.status, 502, 'an answer without the operation\'s fields is no answer')
  t.equal(withoutFields.json.errors[0].extensions.code, 'UPSTREAM_BAD_RESPONSE')
  upstream.behave = () => ({ kind: 'pass' })
  t.equal(system.gateway.cache.size + system.gateway.apiCache.size, 0, 'nothing was stored')
  const good = await post(jobList)
  t.equal(good.headers['x-cache'], 'MISS')
})

t.test('the notFound query is cached like any other: one answer for every 404', async (t) => {
  const body = JSON.stringify({ query: operations.NotFound, variables: { site: DEFAULT_SITE_HANDLE } })
  const first = await post(body)
  const second = await post(body)
  t.equal(first.headers['x-cache'], 'MISS')
  t.equal(second.headers['x-cache'], 'HIT')
  t.ok(second.json.data.entry.title)
})
