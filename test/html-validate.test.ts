import { HtmlValidate } from 'html-validate'
import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE as P } from '../shared/constants.ts'
import { createRouteTable } from '../shared/routes.ts'
import { shippedContent, slugsOf } from './helpers/content.ts'
import { startFaultUpstream } from './helpers/fault-upstream.ts'
import { startSystem } from './helpers/system.ts'

const store = shippedContent()
const system = await startSystem()
t.teardown(() => system.close())

const validator = new HtmlValidate({
  extends: ['html-validate:recommended'],
  rules: {
    // React writes void elements as <meta ... />, boolean attributes as async="", and
    // camel-cased attribute names (charSet, fetchPriority): all valid HTML, only another style.
    'void-style': 'off',
    'attr-case': 'off',
    // HTML5 allows any id without spaces; React's streaming markers use _R_.
    'valid-id': ['error', { relaxed: true }],
    'no-trailing-whitespace': 'off',
    'attribute-empty-style': 'off',
    'attribute-boolean-style': 'off',
    // Rich text comes from the CMS as it is typed there.
    'no-inline-style': 'off',
  },
})

/** The validator's errors for a document, a line each. */
async function errorsOf(html: string, name: string): Promise<string[]> {
  const report = await validator.validateString(html, name)
  return report.results.flatMap((result) => result.messages.filter((m) => m.severity === 2).map((m) => `${m.ruleId} ${m.line}:${m.column} ${m.message}`))
}

const paths = [
  ...createRouteTable(P).staticPaths(),
  ...slugsOf(store, 'jobs').map((slug) => `/jobs/${slug}`),
  ...slugsOf(store, 'topical').map((slug) => `/topical/${slug}`),
  ...slugsOf(store, 'services').map((slug) => `/services/${slug}`),
  '/actueel?pagina=2',
  '/bestaat-niet',
  // Previews, with the preview bar and a draft's marker; last, as a browser keeps the preview's cookie.
  '/over-ons?x-craft-preview=1&token=preview-token-about-draft',
  '/topical/concept-nieuwsbericht-renteverandering?x-craft-preview=1&token=preview-token-new-article',
]

// Crawlers get the HTML once everything is ready; people get the shell first and
// Suspense boundaries streamed in after it: two different documents to validate.
const visitors = {
  crawler: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  person: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
}

for (const [visitor, userAgent] of Object.entries(visitors)) {
  t.test(`the HTML of every route validates, as a ${visitor} gets it`, async (t) => {
    for (const path of paths) {
      const response = await request(`${system.url}${path}`, { headers: { 'user-agent': userAgent } })
      const html = await response.body.text()
      t.same(await errorsOf(html, path), [], path)
    }
  })
}

t.test('the streamed document validates: the deferred news held until the shell has arrived, then streamed in after it', async (t) => {
  // Whether a person's render streams depends on how fast the deferred query answers: here it is held until the shell is in.
  const upstream = await startFaultUpstream()
  const streaming = await startSystem({ CRAFT_API_URL: upstream.url })
  t.teardown(async () => {
    await streaming.close()
    await upstream.close()
  })
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  t.teardown(() => release())
  upstream.behave = (call) => (call.operationName === 'LatestArticles' ? { kind: 'hold', until: held } : { kind: 'pass' })
  const response = await request(`${streaming.url}/`, { headers: { 'user-agent': visitors.person } })
  let html = ''
  for await (const chunk of response.body) {
    html += (chunk as Buffer).toString('utf8')
    if (html.includes('</h1>')) release()
  }
  t.match(html, /<template id="B:\d+"><\/template>/, 'a Suspense placeholder in the shell, so this is the streamed variant')
  t.match(html, /data-loaded="true"/, 'and the news streamed in after it')
  t.same(await errorsOf(html, '/ (streamed)'), [], 'it validates')
})
