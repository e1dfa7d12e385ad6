import { phoneText, telHref } from './format.ts'

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
