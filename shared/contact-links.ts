/**
 * Dutch phone numbers and e-mail addresses as the site writes them, and the
 * links they become: a visitor with damage, on a phone, taps a number. Kept
 * small: the browser's bundle carries it for the plain text of every page.
 */

/**
 * A phone number (ten digits from its leading 0, or +31 / 0031 and nine,
 * with spaces, hyphens or " - " between groups) or an e-mail address, not
 * glued to a word, a digit, a plus or an @ on either side; or the emergency
 * number where the text says to call it ("Bel 112").
 */
const CONTACT = /(?<![\w+@.\u2011-])(?:((?:\+31|0031|0)(?:[ \u00a0]?[-\u2011]?[ \u00a0]?\d){9})|([\w.%+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,})|(?<=\bbel[ \u00a0])(112))(?![\w@\u2011]|[-.]\w)/gi

/** The E.164 form of a Dutch number as written (`088 - 123 45 99` -> `+31881234599`); undefined for anything else. */
export function e164(phone: string): string | undefined {
  const national = /^(?:\+31|0031|0)(\d+)$/.exec(phone.replace(/[^\d+]/g, ''))?.[1]
  return national && /^[1-9]\d{8}$/.test(national) ? `+31${national}` : undefined
}

/** A phone number that never breaks across lines: non-breaking spaces and hyphens. */
export function phoneText(phone: string): string {
  return phone.replace(/ /g, '\u00a0').replace(/-/g, '\u2011')
}

/** The tel: address of a written number: E.164 where it is a Dutch number, else its digits. */
export function telHref(phone: string): string {
  return `tel:${e164(phone) ?? phone.replace(/[^\d+]/g, '')}`
}

/** A piece of text cut where it names a phone number or e-mail address. */
export type ContactPart = string | { kind: 'tel' | 'mailto'; text: string; href: string }

/** The text in pieces: plain runs, and each phone number or e-mail address with its link. */
export function contactParts(text: string): ContactPart[] {
  // Nothing to link without a digit or an @: most texts, at the cost of one scan.
  if (!/[0-9@]/.test(text)) return text === '' ? [] : [text]
  if (text.length > MAX_KNOWN_TEXT_LENGTH) return cutContacts(text)
  let parts = knownParts.get(text)
  if (parts === undefined) {
    if (knownParts.size >= MAX_KNOWN_PARTS) knownParts.clear()
    parts = cutContacts(text)
    knownParts.set(text, parts)
  }
  return parts
}

/**
 * Texts already cut: the same intros, addresses and hours come back on page
 * after page (a render showed the matching as some 5 % of its time). Parts
 * are never changed by their users.
 */
const MAX_KNOWN_PARTS = 500
/** Only short texts are remembered (an intro, an address, a line of hours): at most 500 × 2,048 characters held, whatever the content. */
const MAX_KNOWN_TEXT_LENGTH = 2048
const knownParts = new Map<string, ContactPart[]>()

function cutContacts(text: string): ContactPart[] {
  const parts: ContactPart[] = []
  let last = 0
  for (const match of text.matchAll(CONTACT)) {
    const [whole, phone, , emergency] = match
    const number = emergency ?? (phone && e164(phone))
    if (phone && !number) continue
    parts.push(text.slice(last, match.index), number ? { kind: 'tel', text: whole, href: `tel:${number}` } : { kind: 'mailto', text: whole, href: `mailto:${whole}` })
    last = match.index + whole.length
  }
  parts.push(text.slice(last))
  return parts.filter((part) => part !== '')
}

/** HTML-escaped text with its phone numbers and e-mail addresses made links (the text is already escaped; the matches hold nothing to escape). */
export function linkContactsInHtmlText(escaped: string): string {
  if (!/[0-9@]/.test(escaped)) return escaped
  return contactParts(escaped)
    .map((part) => (typeof part === 'string' ? part : `<a href="${part.href}">${part.kind === 'tel' ? phoneText(part.text) : part.text}</a>`))
    .join('')
}
