import type { Establishment } from '../../../shared/content-types.ts'
import { LinkedText } from '../components/cms-content.tsx'
import { OpeningHours, PhoneAndEmail, PostalAddress } from '../components/contact-details.tsx'
import { SingleWithEntries } from './common.tsx'
import type { JsonLd, ScreenJsonLd } from '../structured-data.ts'
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

const DAYS: Record<string, string> = {
  maandag: 'Monday',
  dinsdag: 'Tuesday',
  woensdag: 'Wednesday',
  donderdag: 'Thursday',
  vrijdag: 'Friday',
  zaterdag: 'Saturday',
  zondag: 'Sunday',
}

function openingHours(rows: { day: string; hours: string }[]): JsonLd[] {
  return rows.flatMap((row) => {
    const match = /(\d{1,2}:\d{2})\s*[–-]\s*(\d{1,2}:\d{2})/.exec(row.hours)
    const day = DAYS[row.day.toLowerCase()]
    return match && day ? [{ '@type': 'OpeningHoursSpecification', dayOfWeek: day, opens: match[1], closes: match[2] }] : []
  })
}

/** Each office as a branch of the agency in the page's structured data (structured-data.ts). */
EstablishmentsScreen.jsonLd = ((payload, site, siteUrl) =>
  entriesOf<Establishment>(payload, 'establishments').map((office) => ({
    '@type': 'InsuranceAgency',
    name: `${site.companyName} – ${office.title}`,
    url: `${siteUrl}/kantoren#${office.slug}`,
    telephone: office.phone,
    email: office.email,
    // Written out, not structured-data.ts's helper: importing it would split that module into a chunk of its own.
    address: { '@type': 'PostalAddress', streetAddress: office.street, postalCode: office.postalCode, addressLocality: office.city, addressCountry: 'NL' },
    ...(office.latitude !== null && office.longitude !== null
      ? { geo: { '@type': 'GeoCoordinates', latitude: office.latitude, longitude: office.longitude } }
      : {}),
    openingHoursSpecification: openingHours(office.openingHours ?? []),
    ...(office.mapUrl ? { hasMap: office.mapUrl } : {}),
    parentOrganization: { '@id': `${siteUrl}/#organisatie` },
  }))) satisfies ScreenJsonLd
