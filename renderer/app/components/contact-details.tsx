import type { ReactNode } from 'react'
import type { OpeningHours as OpeningHoursRow } from '../../../shared/content-types.ts'
import { phoneText, telHref } from './format.ts'

// How to reach the company and its offices, and when: one module, so that the
// footer's parts and the screens that show them travel in one chunk of the
// browser's bundle (each chunk costs its own compression overhead).

/** Where the company or an office is, a line each: the name (where no heading says it), the street, the postal code and town. */
export function PostalAddress({ name, street, postalCode, city }: { name?: string; street: string; postalCode: string; city: string }) {
  return (
    <address>
      {name === undefined ? null : (
        <>
          {name}
          <br />
        </>
      )}
      {street}
      <br />
      {postalCode} {city}
    </address>
  )
}

/** How to reach the company or an office: the phone number, the damage line (the company's only), the e-mail address. */
export function PhoneAndEmail({ phone, damagePhone, email }: { phone: string; damagePhone?: string; email: string }) {
  return (
    <p>
      Telefoon: <a href={telHref(phone)}>{phoneText(phone)}</a>
      <br />
      {damagePhone === undefined ? null : (
        <>
          Schade melden (24/7): <a href={telHref(damagePhone)}>{phoneText(damagePhone)}</a>
          <br />
        </>
      )}
      E-mail: <a href={`mailto:${email}`}>{email}</a>
    </p>
  )
}

/** A term and what it stands for: a day and its hours, a fact of a job. */
export interface Description {
  term: string
  details: ReactNode
}

/** A <dl>, each term with its details in a <div> of its own (the styles lay out the pairs). */
export function DescriptionList({ className, items }: { className: string; items: readonly Description[] }) {
  return (
    <dl className={className}>
      {items.map(({ term, details }) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{details}</dd>
        </div>
      ))}
    </dl>
  )
}

/** Opening hours, a day a row: the company's in the footer, each office's with the office. */
export function OpeningHours({ rows }: { rows: readonly OpeningHoursRow[] | null }) {
  return <DescriptionList className="opening-hours" items={(rows ?? []).map((row) => ({ term: row.day, details: row.hours }))} />
}

