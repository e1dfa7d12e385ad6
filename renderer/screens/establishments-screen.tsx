import type { Establishment } from '../../shared/content-types.ts'
import { LinkedText } from '../components/cms-content.tsx'
import { OpeningHours, PhoneAndEmail, PostalAddress } from '../components/contact-details.tsx'
import { SingleWithEntries } from './common.tsx'
import { type ScreenProps, entriesOf } from './types.ts'

export function EstablishmentList({ offices, headingLevel = 2 }: { offices: Establishment[]; headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3'
  return (
    <ul className="offices">
      {offices.map((office) => (
        <li key={office.id} id={office.slug} className="office card">
          <Heading>{office.title}</Heading>
          {office.intro ? (
            <p>
              <LinkedText text={office.intro} />
            </p>
          ) : null}
          <PostalAddress street={office.street} postalCode={office.postalCode} city={office.city} />
          <PhoneAndEmail phone={office.phone} email={office.email} />
          <OpeningHours rows={office.openingHours} />
          {office.mapUrl ? (
            <p>
              <a href={office.mapUrl} rel="noopener">
                Bekijk {office.title} op de kaart
              </a>
            </p>
          ) : null}
        </li>
      ))}
    </ul>
  )
}

export function EstablishmentsScreen({ payload }: ScreenProps) {
  return (
    <SingleWithEntries payload={payload}>
      <EstablishmentList offices={entriesOf<Establishment>(payload, 'establishments')} />
    </SingleWithEntries>
  )
}
