import t, { type Test } from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'
import { startEmbeddedCms } from '../helpers/fault-upstream.ts'
import { h1Of } from '../helpers/html.ts'
import { startSystem } from '../helpers/system.ts'

// The embedded API on the wire, against what a real Craft answers (craftcms/cms src/web/Request.php `_findToken`,
// src/controllers/GraphqlController.php `actionApi`): status codes and bodies for tokens, bearers and invalid documents.
const ABOUT_DRAFT = 'preview-token-about-draft'
const SCHEMA_TOKEN = 'schema-secret'
const ABOUT_SECTION = `${DEFAULT_SITE_HANDLE}About`
const liveAbout = titleOf(shippedContent(), ABOUT_SECTION)
const ABOUT_QUERY = `{ entry(section: "${ABOUT_SECTION}") { title status isDraft draftId isRevision revisionId } }`

// Without a schema token: the embedded CMS alone, as the tests' Craft stand-in.
const open = await startEmbeddedCms()
// With one: the gateway's own embedded API on its loopback listener, which the gateway's client reaches with the bearer.
const guarded = await startSystem({ CRAFT_SCHEMA_TOKEN: SCHEMA_TOKEN })
const guardedUrl = String(guarded.gateway.embeddedCmsUrl)
t.teardown(async () => {
  await guarded.close()
  await open.app.close()
})

interface WireAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Record<string, unknown>
}

const post = async (url: string, query: string, headers: Record<string, string> = {}, search = ''): Promise<WireAnswer> => {
  const response = await request(`${url}${search}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify({ query }),
  })
  return { status: response.statusCode, headers: response.headers, body: (await response.body.json()) as Record<string, unknown> }
}
const neitherDataNorErrors = (t: Test, answer: WireAnswer, message: string): void => {
  t.notOk('data' in answer.body, `${message}: no data`)
  t.notOk('errors' in answer.body, `${message}: no errors`)
}
interface AboutEntry {
  title: string
  status: string
  isDraft: boolean
  draftId: number | null
  isRevision: boolean
  revisionId: number | null
}
const aboutOf = (answer: WireAnswer) => (answer.body.data as { entry: AboutEntry } | undefined)?.entry

t.test('a token with characters Craft refuses: 400 before any GraphQL runs, neither data nor errors', async (t) => {
  for (const token of ['abc.def', 'a+b/c=', '<script>', 'tok~en', 'with space']) {
    const inHeader = await post(open.url, ABOUT_QUERY, { 'x-craft-token': token })
    t.equal(inHeader.status, 400, `${token} in X-Craft-Token: 400`)
    neitherDataNorErrors(t, inHeader, `${token} in X-Craft-Token`)
    t.equal(inHeader.body.message, 'Invalid token', 'Craft\'s message')
    const inQuery = await post(open.url, ABOUT_QUERY, {}, `?token=${encodeURIComponent(token)}`)
    t.equal(inQuery.status, 400, `${token} in ?token=: 400`)
    neitherDataNorErrors(t, inQuery, `${token} in ?token=`)
  }
  const queryFirst = await post(open.url, ABOUT_QUERY, { 'x-craft-token': ABOUT_DRAFT }, '?token=abc.def')
  t.equal(queryFirst.status, 400, 'the query parameter is read before the header, as Craft reads them')
})

t.test('a well-formed token: the draft for its own, the live content when unknown (or expired)', async (t) => {
  const draft = await post(open.url, ABOUT_QUERY, { 'x-craft-token': ABOUT_DRAFT })
  t.equal(draft.status, 200)
  const { draftId, ...drafted } = aboutOf(draft) ?? ({} as AboutEntry)
  t.same(drafted, { title: 'Over Havenborg (concept)', status: 'live', isDraft: true, isRevision: false, revisionId: null })
  t.ok(Number.isInteger(draftId) && (draftId ?? 0) > 0, `a draft has its draftId, as Craft's isDraft is draftId !== null: ${draftId}`)
  t.equal(draft.headers['x-robots-tag'], 'none', 'a tokenised answer is X-Robots-Tag: none, as Craft sends it')

  for (const token of ['unknown-token', 'expired_token-from-2024', 'x'.repeat(600)]) {
    const unknown = await post(open.url, ABOUT_QUERY, { 'x-craft-token': token })
    t.equal(unknown.status, 200, `${token.slice(0, 24)}: 200, not an error`)
    t.notOk('errors' in unknown.body, 'no errors')
    t.same(aboutOf(unknown), { title: liveAbout, status: 'live', isDraft: false, draftId: null, isRevision: false, revisionId: null }, 'the live content')
    t.equal(unknown.headers['x-robots-tag'], 'none')
  }
  const viaQuery = await post(open.url, ABOUT_QUERY, {}, '?token=unknown-token')
  t.equal(viaQuery.status, 200)
  t.same(aboutOf(viaQuery)?.title, liveAbout)

  const none = await post(open.url, ABOUT_QUERY)
  t.equal(none.status, 200)
  t.equal(none.headers['x-robots-tag'], undefined, 'no X-Robots-Tag without a token')
})

t.test('validation errors: 200 with errors and no data, as Craft answers them', async (t) => {
  const cases: [string, string][] = [
    ['an unknown field', `{ entry(section: "${ABOUT_SECTION}") { title noSuchField } }`],
    ['a fragment on a type that does not exist', '{ entry { ... on news_article_Entry { title } } }'],
    ['a syntax error', '{ entry { title '],
    ['two errors at once', '{ entry { nope } entries { nope } }'],
  ]
  for (const [what, query] of cases) {
    const answer = await post(open.url, query)
    t.equal(answer.status, 200, `${what}: 200`)
    t.ok(Array.isArray(answer.body.errors) && (answer.body.errors as unknown[]).length > 0, `${what}: errors`)
    t.notOk('data' in answer.body, `${what}: no data`)
  }
})

t.test('with a schema token configured: a missing or wrong bearer is refused without GraphQL, the right one answered', async (t) => {
  const refusals: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['a wrong bearer', { authorization: 'Bearer not-the-schema-token' }],
    ['a wrong bearer in X-Craft-Authorization', { 'x-craft-authorization': 'Bearer not-the-schema-token', authorization: `Bearer ${SCHEMA_TOKEN}` }],
    ['the token without the Bearer scheme', { authorization: SCHEMA_TOKEN }],
  ]
  for (const [what, headers] of refusals) {
    const answer = await post(guardedUrl, ABOUT_QUERY, headers)
    t.ok(answer.status === 400 || answer.status === 403, `${what}: ${answer.status}`)
    neitherDataNorErrors(t, answer, what)
  }
  const right = await post(guardedUrl, ABOUT_QUERY, { authorization: `Bearer ${SCHEMA_TOKEN}` })
  t.equal(right.status, 200, 'the right bearer: 200')
  t.same(aboutOf(right)?.title, liveAbout)
  const malformedFirst = await post(guardedUrl, ABOUT_QUERY, { authorization: 'Bearer wrong', 'x-craft-token': 'abc.def' })
  t.equal(malformedFirst.body.message, 'Invalid token', 'a malformed token is refused before the bearer is looked at')

  const page = await request(`${guarded.url}/over-ons`)
  t.equal(page.statusCode, 200, 'the gateway\'s own pages work: its client sends the bearer')
  t.equal(h1Of(await page.body.text()), liveAbout)
})

t.test('without a schema token configured no bearer is needed', async (t) => {
  const answer = await post(open.url, ABOUT_QUERY)
  t.equal(answer.status, 200)
  t.same(aboutOf(answer)?.title, liveAbout)
})
