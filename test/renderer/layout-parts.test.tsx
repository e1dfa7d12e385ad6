import { renderToString } from 'react-dom/server'
import t from 'tap'
import { request } from 'undici'
import { Document, type DocumentProps } from '../../renderer/server/document.tsx'
import { layoutPartsOf, layoutPartsOfPayload } from '../../renderer/server/layout-parts.tsx'
import { NO_PAGE_PRELOADS } from '../../renderer/server/module-preloads.ts'
import type { SiteSettingsData } from '../../shared/content-types.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { startSystem } from '../helpers/system.ts'

/**
 * The header, damage bar and footer are rendered once per site settings and
 * menu state and their HTML reused (renderer/server/layout-parts.tsx): a page must
 * come out byte for byte as React writes it whole, or the browser's hydration
 * finds another page than it renders (a menu link current on the wrong page).
 */
const PATHS = ['/', '/over-ons', '/Over-Ons', '/onze-verzekeringen', '/actueel?pagina=2', '/contact', '/bestaat-niet']

const documentHtml = (payload: PagePayload, layoutParts: DocumentProps['layoutParts']): string =>
  renderToString(
    <Document
      payload={payload}
      deferred={null}
      stylesheet="/styles.css"
      client={{ buildId: 'test', buildPollIntervalMs: 60_000 }}
      modulePreloads={NO_PAGE_PRELOADS}
      nonce="AAAAAAAAAAAAAAAAAAAAAA=="
      layoutParts={layoutParts}
    />,
  )

t.test('a page with the stored layout parts is the page React renders whole', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const payloads: PagePayload[] = []
  for (const path of PATHS) {
    const [pathname = path, search] = path.split('?')
    const response = await request(`${system.url}${pathname === '/' ? '' : pathname}/_payload.json${search ? `?${search}` : ''}`)
    payloads.push((await response.body.json()) as PagePayload)
  }
  // Without site settings (a global set that failed): the footer's and header's fall-backs.
  const home = payloads[0] as PagePayload
  payloads.push({ ...home, data: { ...home.data, site: undefined } })
  for (const payload of payloads) {
    const parts = layoutPartsOfPayload(payload)
    t.type(parts.header, 'string', `${payload.fullPath}: the header is stored`)
    t.type(parts.footer, 'string', `${payload.fullPath}: the footer is stored`)
    const whole = documentHtml(payload, undefined)
    t.equal(documentHtml(payload, parts), whole, `${payload.fullPath} (${payload.status}${payload.data.site ? '' : ', no site settings'})`)
    // Made again from memory, for the next page with the same settings and menu state.
    t.equal(documentHtml(payload, layoutPartsOfPayload(payload)), whole, `${payload.fullPath}, its parts from memory`)
  }
  const site = (home.data.site as SiteSettingsData).globalSet
  t.type(layoutPartsOf(site, '/', '').damage, 'string', 'the damage bar is stored')
  t.equal(layoutPartsOf(site, '/actueel/een-artikel', ''), layoutPartsOf(site, '/kantoren/rotterdam', ''), 'pages where no menu link is current share their parts')
  t.not(layoutPartsOf(site, '/', ''), layoutPartsOf(site, '/over-ons', ''), 'a page whose menu link is current has its own')
  t.match(layoutPartsOf(site, '/over-ons', '').header, /href="\/over-ons" aria-current="page"/)
  t.not(layoutPartsOf(site, '/', ''), layoutPartsOf({ ...site, phone: '+31 10 000 0000' } as typeof site, '/', ''), 'changed settings make new parts')
})
