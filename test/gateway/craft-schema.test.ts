import t, { type Test } from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import type { CraftVersion } from '../../shared/craft-naming.ts'
import { startFaultUpstream } from '../helpers/fault-upstream.ts'
import { h1Of } from '../helpers/html.ts'
import { getPage } from '../helpers/http.ts'
import { freePort } from '../helpers/ports.ts'
import { within } from '../helpers/redis.ts'
import { type System, startSystem } from '../helpers/system.ts'

const ERROR_HEADING = 'Er is iets misgegaan.'
const ABOUT_SECTION = `${DEFAULT_SITE_HANDLE}About`

interface TypeRef {
  name: string | null
  ofType?: TypeRef | null
}

interface IntrospectedType {
  name: string
  fields?: { name: string; type: TypeRef }[] | null
  interfaces?: { name: string }[] | null
  possibleTypes?: { name: string }[] | null
}

const namedType = (type: TypeRef): string | null => (type.ofType ? namedType(type.ofType) : type.name)

/**
 * A Craft stand-in in front of the embedded API: it passes every call on,
 * but can hide types from its introspection (a section the schema may not
 * read) or refuse the schema token as Craft does.
 */
interface CraftStandIn {
  url: string
  operations: string[]
  hide: Set<string>
  refuseToken: boolean
}

/** An introspection answer without the `hidden` types, as Craft leaves out what the schema may not read: the types, and the fields that would lead to them. */
function withoutTypes(text: string, hidden: ReadonlySet<string>): string {
  const parsed = JSON.parse(text) as { data: { __schema: { types: IntrospectedType[] } } }
  const schema = parsed.data.__schema
  schema.types = schema.types.filter((type) => !hidden.has(type.name))
  for (const type of schema.types) {
    if (type.possibleTypes) type.possibleTypes = type.possibleTypes.filter((possible) => !hidden.has(possible.name))
    if (type.fields) type.fields = type.fields.filter((field) => !hidden.has(namedType(field.type) ?? ''))
  }
  return JSON.stringify(parsed)
}

async function startCraftStandIn(t: Test, version: CraftVersion, port = 0): Promise<CraftStandIn> {
  const upstream = await startFaultUpstream({ version, port })
  t.teardown(() => upstream.close())
  const standIn: CraftStandIn = { url: upstream.url, operations: [], hide: new Set(), refuseToken: false }
  upstream.behave = ({ operationName }) => {
    standIn.operations.push(operationName ?? 'anonymous')
    // Craft's answer to a bad bearer token: an error that is no GraphQL answer.
    if (standIn.refuseToken) return { kind: 'answer', status: 400, body: JSON.stringify({ message: 'Invalid Authorization header' }) }
    if (operationName === 'IntrospectionQuery' && standIn.hide.size > 0) return { kind: 'pass', rewrite: (text) => withoutTypes(text, standIn.hide) }
    return { kind: 'pass' }
  }
  return standIn
}

async function system(t: Test, env: Record<string, string>): Promise<System> {
  const started = await startSystem({ CRAFT_SCHEMA_RETRY_MS: '50', ...env })
  t.teardown(() => started.close())
  return started
}

const get = (target: System, path: string) => getPage(`${target.url}${path}`)

interface Readiness {
  status: string
  checks: Record<string, string>
  schema: { craftVersion: number; failing: Record<string, string[]> }
}

async function readiness(target: System): Promise<{ status: number; body: Readiness }> {
  const response = await request(`${target.internalUrl}/readyz`)
  return { status: response.statusCode, body: (await response.body.json()) as Readiness }
}

for (const [configured, actual] of [
  [5, 4],
  [4, 5],
] as const) {
  t.test(`configured for Craft ${configured}, talking to Craft ${actual}: the naming is learnt from the schema`, async (t) => {
    const craft = await startCraftStandIn(t, actual)
    const site = await system(t, { CRAFT_API_URL: craft.url, CRAFT_VERSION: String(configured) })
    const ready = await readiness(site)
    t.equal(ready.status, 200)
    t.equal(ready.body.checks.schema, 'ok')
    t.equal(ready.body.schema.craftVersion, actual)
    t.same(ready.body.schema.failing, {})
    for (const path of ['/', '/over-ons', '/actueel', '/kantoren', '/werken-bij']) {
      const page = await get(site, path)
      t.equal(page.status, 200, `${path} renders`)
      t.not(h1Of(page.html), ERROR_HEADING, `${path} is no error page`)
    }
    t.match((await get(site, '/actueel')).html, /Mark Dijkhuis/, "an article's author is Craft's user")
  })
}

t.test('introspection off: CRAFT_VERSION decides, and a wrong one shows as Craft refusing the documents', async (t) => {
  const craft = await startCraftStandIn(t, 4)
  const right = await system(t, { CRAFT_API_URL: craft.url, CRAFT_VERSION: '4', CRAFT_INTROSPECTION: 'false' })
  t.equal((await readiness(right)).body.checks.schema, 'not checked')
  t.equal((await get(right, '/over-ons')).status, 200)
  t.notOk(craft.operations.includes('IntrospectionQuery'), 'Craft was not asked for its schema')

  const wrong = await system(t, { CRAFT_API_URL: craft.url, CRAFT_INTROSPECTION: 'false' })
  const page = await get(wrong, '/over-ons')
  t.equal(page.status, 502, "Craft 5 documents against a Craft 4 schema: Craft's validation errors, a 502")
  t.equal(h1Of(page.html), ERROR_HEADING)
})

t.test('a section the schema may not read breaks only its own pages, named once in the log and in /readyz', async (t) => {
  const craft = await startCraftStandIn(t, 5)
  craft.hide.add(`${ABOUT_SECTION}_Entry`)
  const site = await system(t, { CRAFT_API_URL: craft.url })
  const ready = await readiness(site)
  t.equal(ready.status, 200, 'still ready: every other page works')
  t.equal(ready.body.checks.schema, 'failing')
  t.same(Object.keys(ready.body.schema.failing), ['AboutPage'], 'only the about page document')
  t.match(ready.body.schema.failing.AboutPage?.join(' '), new RegExp(`section "${ABOUT_SECTION}".*View entries`), 'the reason names the section and the permission')

  craft.operations.length = 0
  for (let i = 0; i < 2; i += 1) {
    const about = await get(site, '/over-ons')
    t.equal(about.status, 502, 'the page that needs it: 502')
    t.equal(h1Of(about.html), ERROR_HEADING, 'the Dutch error page')
    t.equal(about.headers['cache-control'], 'private, no-store')
  }
  t.notOk(craft.operations.includes('AboutPage'), 'the refused document never reaches Craft')
  for (const path of ['/', '/kantoren', '/actueel', '/werken-bij', '/disclaimer']) t.equal((await get(site, path)).status, 200, `${path} works`)
  const logged = site.gatewayLogs.lines.filter((line) => line.operation === 'AboutPage')
  t.equal(logged.length, 1, 'logged once, however often the page is asked for')
  t.equal(logged[0]?.level, 50, 'as an error')
})

t.test('a schema that may not read users: articles without their author, every page works', async (t) => {
  const craft = await startCraftStandIn(t, 5)
  craft.hide.add('UserInterface').add('User')
  const site = await system(t, { CRAFT_API_URL: craft.url })
  const ready = await readiness(site)
  t.equal(ready.body.checks.schema, 'ok', 'the documents leave the author out')
  for (const path of ['/', '/actueel', '/topical/premies-2027-uitgelegd']) {
    const page = await get(site, path)
    t.equal(page.status, 200, `${path} renders`)
    t.notMatch(page.html, /Mark Dijkhuis/, `${path}: no author`)
  }
  t.ok(site.gatewayLogs.lines.some((line) => String(line.msg).includes('may not read users')), 'said in the log')
})

t.test('a Craft that cannot be reached at start-up: the gateway starts, is not ready, and checks again', async (t) => {
  // Picked free and bound later: the subject is a Craft that comes up at the address the gateway was given.
  const port = await freePort()
  const site = await system(t, { CRAFT_API_URL: `http://127.0.0.1:${port}/api` })
  const before = await readiness(site)
  t.equal(before.status, 503)
  t.equal(before.body.checks.schema, 'unreachable')
  t.equal((await request(`${site.url}/healthz`)).statusCode, 200, 'alive')

  const craft = await startCraftStandIn(t, 4, port)
  const waited = await within(15_000, async () => (await readiness(site)).status === 200, 50)
  t.ok(waited !== undefined, 'ready once Craft answers')
  t.equal((await readiness(site)).body.schema.craftVersion, 4, 'with the naming Craft uses')
  t.ok(craft.operations.includes('IntrospectionQuery'))
  t.equal((await get(site, '/over-ons')).status, 200)
})

t.test('a schema token Craft refuses: a log line, not ready, no crash', async (t) => {
  const craft = await startCraftStandIn(t, 5)
  craft.refuseToken = true
  const site = await system(t, { CRAFT_API_URL: craft.url, CRAFT_SCHEMA_TOKEN: 'wrong-token' })
  const ready = await readiness(site)
  t.equal(ready.status, 503)
  t.equal(ready.body.checks.schema, 'refused')
  await within(5000, () => craft.operations.filter((name) => name === 'IntrospectionQuery').length >= 3)
  const lines = site.gatewayLogs.lines.filter((line) => String(line.msg).includes('CRAFT_SCHEMA_TOKEN'))
  t.equal(lines.length, 1, 'said once, though Craft was asked again')
  t.equal((await request(`${site.url}/healthz`)).statusCode, 200, 'the gateway runs on')
  const page = await get(site, '/over-ons')
  t.equal(page.status, 502, 'pages: the Dutch error page')
  t.equal(h1Of(page.html), ERROR_HEADING)
})
