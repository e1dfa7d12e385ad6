import { renderToStaticMarkup } from 'react-dom/server'
import t from 'tap'
import { JobScreen, withMailSubject } from '../../renderer/app/screens/job-screen.tsx'
import type { SiteSettings } from '../../shared/content-types.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { getPage } from '../helpers/http.ts'
import { growth } from '../helpers/linear-time.ts'
import { startSystem } from '../helpers/system.ts'

/** Issue 49, finding 7: a vacancy's mail link names the vacancy, as an insurance's names the insurance. */
const payloadOf = (howToApply: string, intro: string | null = null): PagePayload => ({
  path: '/werken-bij/adviseur',
  fullPath: '/werken-bij/adviseur',
  routeId: 'job',
  screen: 'job',
  status: 200,
  data: { entry: { entry: { id: '1', title: 'Adviseur particuliere verzekeringen', slug: 'adviseur', intro, howToApply, whatYouDo: null, whatYouBring: null, whatWeOffer: null } } },
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

/** The description of a job's posting in its structured data, for an intro as the CMS gives it. */
const postedDescription = (intro: string): unknown => {
  const [posting] = JobScreen.jsonLd?.(payloadOf('', intro), { companyName: 'Havenborg' } as SiteSettings, 'https://www.havenborg.example', undefined) ?? []
  return (posting as { description?: unknown } | undefined)?.description
}

t.test("a job's structured data: its intro's tags cut out, in CPU time per character that does not grow with a run of < or > (issue 52)", async (t) => {
  t.equal(postedDescription('<p>Wij <b>zoeken</b>\n een adviseur.</p>'), '<p>Wij zoeken een adviseur.</p>', 'tags as the sanitiser leaves them')
  t.equal(postedDescription('a <<b> c'), '<p>a < c</p>', 'a tag ends at the next < or >: a lone < stays text')
  t.equal(postedDescription('<p>Wij</p><p>zoeken</p>'), '<p>Wij zoeken</p>', 'a tag between words parts them')
  // A tag read up to the next > alone reads to the end of the text from each < of a run: 40 times the time per character at 25 KB.
  for (const [name, run] of Object.entries({ '<': (n: number) => '<'.repeat(n), '<a': (n: number) => '<a'.repeat(n / 2), '<>': (n: number) => `${'<'.repeat(n)}>` })) {
    const { ratios, linear } = growth(postedDescription, (length, call) => `${run(length)}${call}`, [1_000, 25_000, 100_000], 5)
    t.ok(linear, `${name}: CPU time per character as a multiple of 1 KB's: ${JSON.stringify(ratios)}`)
  }
})
