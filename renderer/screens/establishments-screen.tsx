import { phoneText, telHref } from '../components/format.ts'
import type { EntriesData, Establishment } from '../../shared/content-types.ts'
import { SingleContent, singlePage } from './common.tsx'
import { type ScreenProps, dataOf } from './types.ts'

export function EstablishmentList({ offices, headingLevel = 2 }: { offices: Establishment[]; headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3'
  return (
    <ul className="offices">
      {offices.map((office) => (
        <li key={office.id} id={office.slug} className="office card">
          <Heading>{office.title}</Heading>
          {office.intro ? <p>{office.intro}</p> : null}
          <address>
            {office.street}
            <br />
            {office.postalCode} {office.city}
          </address>
          <p>
            Telefoon: <a href={telHref(office.phone)}>{phoneText(office.phone)}</a>
            <br />
            E-mail: <a href={`mailto:${office.email}`}>{office.email}</a>
          </p>
          <dl className="opening-hours">
            {(office.openingHours ?? []).map((row) => (
              <div key={row.day}>
                <dt>{row.day}</dt>
                <dd>{row.hours}</dd>
              </div>
            ))}
          </dl>
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
  const page = singlePage(payload)
  const offices = dataOf<EntriesData<Establishment>>(payload, 'establishments')?.entries ?? []
  if (!page) return null
  return (
    <>
      <SingleContent page={page} />
      <div className="container">
        <EstablishmentList offices={offices} />
      </div>
    </>
  )
}
