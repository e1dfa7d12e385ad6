/**
 * Dutch phone numbers and e-mail addresses as the site writes them, and the
 * links they become: a visitor with damage, on a phone, taps a number.
 */

/** A Dutch number of ten digits from its leading 0 (or +31 / 0031 and nine), with spaces, hyphens or " - " between groups. */
const PHONE = String.raw`(?:\+31|0031|0)(?:[ \u00a0]?[-\u2011]?[ \u00a0]?\d){9}`
const EMAIL = String.raw`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`
/** Either, not glued to a word, a digit, a plus or an @ on either side. */
const CONTACT = new RegExp(String.raw`(?<![\w+@.\u2011-])(?:(${PHONE})|(${EMAIL}))(?![\w@\u2011]|[-.]\w)`, 'g')

/** The E.164 form of a Dutch number as written (`088 - 123 45 99` -> `+31881234599`); undefined for anything else. */
export function e164(phone: string): string | undefined {
  const digits = phone.replace(/[^0-9+]/g, '')
  const national = digits.startsWith('+31') ? digits.slice(3) : digits.startsWith('0031') ? digits.slice(4) : digits.startsWith('0') ? digits.slice(1) : undefined
  return national !== undefined && /^[1-9]\d{8}$/.test(national) ? `+31${national}` : undefined
}

/** A phone number that never breaks across lines: non-breaking spaces and hyphens. */
export function phoneText(phone: string): string {
  return phone.replace(/ /g, '\u00a0').replace(/-/g, '\u2011')
}

/** The tel: address of a written number: E.164 where it is a Dutch number, else its digits. */
export function telHref(phone: string): string {
  return `tel:${e164(phone) ?? phone.replace(/[^0-9+]/g, '')}`
}

/** A piece of text cut where it names a phone number or e-mail address. */
export type ContactPart = string | { kind: 'tel' | 'mailto'; text: string; href: string }

/** The text in pieces: plain runs, and each phone number or e-mail address with its link. */
export function contactParts(text: string): ContactPart[] {
  const parts: ContactPart[] = []
  let last = 0
  for (const match of text.matchAll(CONTACT)) {
    const [whole, phone] = match
    const href = phone === undefined ? `mailto:${whole}` : e164(phone) === undefined ? undefined : telHref(phone)
    if (href === undefined) continue
    if (match.index > last) parts.push(text.slice(last, match.index))
    parts.push({ kind: phone === undefined ? 'mailto' : 'tel', text: whole, href })
    last = match.index + whole.length
  }
  if (last < text.length) parts.push(text.slice(last))
  return parts
}

/** HTML-escaped text with its phone numbers and e-mail addresses made links (the text is already escaped; the matches hold nothing to escape). */
export function linkContactsInHtmlText(escaped: string): string {
  if (!/[0-9@]/.test(escaped)) return escaped
  return contactParts(escaped)
    .map((part) => (typeof part === 'string' ? part : `<a href="${part.href}">${part.kind === 'tel' ? phoneText(part.text) : part.text}</a>`))
    .join('')
}
