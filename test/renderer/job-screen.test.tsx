import { renderToStaticMarkup } from 'react-dom/server'
import t from 'tap'
import { JobScreen, withMailSubject } from '../../renderer/app/screens/job-screen.tsx'
import type { PagePayload } from '../../shared/payload.ts'
import { getPage } from '../helpers/http.ts'
import { startSystem } from '../helpers/system.ts'

/** Issue 49, finding 7: a vacancy's mail link names the vacancy, as an insurance's names the insurance. */
const payloadOf = (howToApply: string): PagePayload => ({
  path: '/werken-bij/adviseur',
  fullPath: '/werken-bij/adviseur',
  routeId: 'job',
  screen: 'job',
  status: 200,
  data: { entry: { entry: { id: '1', title: 'Adviseur particuliere verzekeringen', slug: 'adviseur', intro: null, howToApply, whatYouDo: null, whatYouBring: null, whatWeOffer: null } } },
  pending: [],
  page: 1,
  preview: false,
  siteUrl: 'https://www.havenborg.example',
  canonicalPath: null,
})

t.test("a vacancy's mail link gets a subject naming the vacancy; an editor's own subject stays", async (t) => {
  const html = renderToStaticMarkup(<JobScreen payload={payloadOf('<p>Mail <a href="mailto:vacatures@havenborg.nl">ons</a>.</p>')} deferred={null} />)
  t.match(html, 'href="mailto:vacatures@havenborg.nl?subject=Sollicitatie%3A%20Adviseur%20particuliere%20verzekeringen"')
  const own = '<p><a href="mailto:hr@havenborg.nl?subject=Open%20dag">hr</a></p>'
  t.equal(withMailSubject(own, 'Adviseur'), own)
  t.equal(withMailSubject(null, 'Adviseur'), null)
  t.equal(withMailSubject('<p>Bel ons.</p>', 'Adviseur'), '<p>Bel ons.</p>')
})

t.test("on the site: each vacancy's mail link names it", async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const page = await getPage(`${system.url}/werken-bij/allround-schadebehandelaar`)
  t.equal(page.status, 200)
  t.match(page.html, 'href="mailto:vacatures@havenborg.nl?subject=Sollicitatie%3A%20Allround%20schadebehandelaar"')
})
