import { renderToStaticMarkup } from 'react-dom/server'
import t from 'tap'
import { Footer } from '../../renderer/app/components/layout.tsx'
import type { SiteSettings } from '../../shared/content-types.ts'
import { getPage } from '../helpers/http.ts'
import { startSystem } from '../helpers/system.ts'

/**
 * Issue 49, finding 5: the footer's hours say whose they are. The global
 * set's hours are the telephone's (docs/craft.md); an office keeps its own
 * (Zwolle opens on Saturday morning), on the offices' page the footer links.
 */
const hoursOf = (html: string): string => /<section aria-labelledby="footer-hours">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? ''

t.test("the footer's hours are the telephone's, from the global set, and lead to each office's own", async (t) => {
  const site = {
    companyName: 'Havenborg Assurantiën',
    phone: '088 - 123 45 00',
    damagePhone: '088 - 123 45 99',
    email: 'info@havenborg.nl',
    street: 'Burgemeester Roelenweg 14',
    postalCode: '8021 EV',
    city: 'Zwolle',
    openingHours: [
      { day: 'Maandag', hours: '08:00 – 18:00' },
      { day: 'Zaterdag', hours: 'Gesloten' },
    ],
    footerNavigation: null,
  } as unknown as SiteSettings
  const hours = hoursOf(renderToStaticMarkup(<Footer site={site} />))
  t.match(hours, /<h2 id="footer-hours">Telefonisch bereikbaar<\/h2>/, 'says whose hours they are')
  t.match(hours, /<dt>Maandag<\/dt><dd>08:00 – 18:00<\/dd>/, 'the rows of the global set')
  t.match(hours, /<a href="\/kantoren">Openingstijden per kantoor<\/a>/, "and the offices' page for each office's own")
})

t.test('on the site: the footer says the telephone is closed on Saturday, and leads to the office that is open', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const home = await getPage(`${system.url}/`)
  const hours = hoursOf(home.html)
  t.match(hours, 'Telefonisch bereikbaar')
  t.match(hours, /<dt>Zaterdag<\/dt><dd>Gesloten<\/dd>/)
  const link = /<a href="([^"]+)">Openingstijden per kantoor<\/a>/.exec(hours)?.[1]
  t.equal(link, '/kantoren')
  const offices = await getPage(`${system.url}${link}`)
  t.match(offices.html, /Zwolle[\s\S]*<dt>Zaterdag<\/dt><dd>09:00 – 12:00<\/dd>/, 'where Zwolle says its Saturday hours')
  t.equal([...home.html.matchAll(/>Openingstijden per kantoor</g)].length, 1, 'one link there in the footer, not one in its hours and another in its list')
})
