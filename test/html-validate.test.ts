import { HtmlValidate } from 'html-validate'
import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE as P } from '../shared/constants.ts'
import { createRouteTable } from '../shared/routes.ts'
import { shippedContent, slugsOf } from './helpers/content.ts'
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

t.test('the HTML of every route validates', async (t) => {
  const paths = [
    ...createRouteTable(P).staticPaths(),
    ...slugsOf(store, 'jobs').map((slug) => `/jobs/${slug}`),
    ...slugsOf(store, 'topical').map((slug) => `/topical/${slug}`),
    ...slugsOf(store, 'services').map((slug) => `/services/${slug}`),
    '/actueel?pagina=2',
    '/bestaat-niet',
  ]
  for (const path of paths) {
    const response = await request(`${system.url}${path}`, { headers: { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1)' } })
    const html = await response.body.text()
    const report = await validator.validateString(html, path)
    const errors = report.results.flatMap((result) => result.messages.filter((m) => m.severity === 2).map((m) => `${m.ruleId} ${m.line}:${m.column} ${m.message}`))
    t.same(errors, [], path)
  }
})
