import { phoneText, telHref } from '../components/format.ts'
import type { Establishment } from '../../../shared/content-types.ts'
import { useSite } from '../components/site-context.tsx'
import { SingleWithEntries } from './common.tsx'
import { EstablishmentList } from './establishments-screen.tsx'
import { type ScreenProps, entriesOf } from './types.ts'

export function ContactScreen({ payload }: ScreenProps) {
  const site = useSite()
  return (
    <SingleWithEntries payload={payload}>
      {site ? (
        <section aria-labelledby="contact-direct" className="section contact-direct">
          <h2 id="contact-direct">Direct contact</h2>
          <ul className="contact-list">
            <li>
              Algemeen: <a href={telHref(site.phone)}>{phoneText(site.phone)}</a>
            </li>
            <li>
              Schade melden, dag en nacht: <a href={telHref(site.damagePhone)}>{phoneText(site.damagePhone)}</a>
            </li>
            <li>
              E-mail: <a href={`mailto:${site.email}`}>{site.email}</a>
            </li>
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="contact-kantoren" className="section">
        <h2 id="contact-kantoren">Onze kantoren</h2>
        <EstablishmentList offices={entriesOf<Establishment>(payload, 'establishments')} headingLevel={3} />
      </section>
    </SingleWithEntries>
  )
}
