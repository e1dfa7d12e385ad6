/**
 * Dutch phone numbers and e-mail addresses as the site writes them, and the
 * links they become: a visitor with damage, on a phone, taps a number. Kept
 * small: the browser's bundle carries it for the plain text of every page.
 *
 * Found in time linear in the text, whatever an editor pastes: each pattern
 * spends a bounded number of steps at each place it may start (a number is
 * at most 40 characters; an address starts only where a run of its
 * characters does, so each run and each domain is read once), and no
 * stretch of text is searched twice for the same kind of match.
 */

/**
 * A phone number (ten digits from its leading 0, or +31 / 0031 and nine,
 * with a space, two spaces, a hyphen or " - " between groups) or the
 * emergency number where the text says to call it ("Bel 112"), not glued to
 * a word, a digit, a plus or an @ on either side. A match is at most 40
 * characters, and each separator can be read one way only: a start is
 * accepted or rejected in a bounded number of steps.
 */
const NUMBER = /(?<![\w+@.\u2011-])(?:((?:\+31|0031|0)(?:(?:[ \u00a0](?:[-\u2011][ \u00a0]?|[ \u00a0])?|[-\u2011][ \u00a0]?)?\d){9})|(?<=\bbel[ \u00a0])(112))(?![\w@\u2011]|[-.]\w)/gi
/**
 * An e-mail address, not glued to a word, a digit, a plus, an @, a dot or a
 * % before it: it starts only where a run of its characters starts, so each
 * run is read once, up to 64 characters (RFC 5321's bound on a local part),
 * and each @'s domain once. A domain of more than 253 characters is no
 * address (cutContacts).
 */
const EMAIL = /(?<![\w+@.%\u2011-])[\w.%+-]{1,64}@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?![\w@\u2011]|[-.]\w)/gi
const MAX_DOMAIN = 253

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

/** A match: where it starts and ends, and for a number its E.164 form; null for what is passed over (a number that is not Dutch, an address with too long a domain). */
type Found = [start: number, end: number, tel?: string | null]

/**
 * The text cut at its numbers and addresses, from left to right, none
 * overlapping the one before: at each place the leftmost of the next number
 * and the next address (the number where both start at once). Each kind's
 * next match is kept until a match taken passes it: searching again after
 * every match would read the text once per match.
 */
function cutContacts(text: string): ContactPart[] {
  const parts: ContactPart[] = []
  let last = 0
  for (let number = next(NUMBER, text, 0), email = next(EMAIL, text, 0); number || email; ) {
    const [start, end, tel] = number && (!email || number[0] <= email[0]) ? number : (email as Found)
    const whole = text.slice(start, end)
    // A number that is not Dutch, or an address whose domain is too long, is passed over, as text.
    if (tel !== null) {
      parts.push(text.slice(last, start), tel ? { kind: 'tel', text: whole, href: `tel:${tel}` } : { kind: 'mailto', text: whole, href: `mailto:${whole}` })
      last = end
    }
    if (number && number[0] < end) number = next(NUMBER, text, end)
    if (email && email[0] < end) email = next(EMAIL, text, end)
  }
  parts.push(text.slice(last))
  return parts.filter((part) => part !== '')
}

/** The next match of `pattern` (NUMBER or EMAIL) at `from` or after; null when there is none. */
function next(pattern: RegExp, text: string, from: number): Found | null {
  pattern.lastIndex = from
  const found = pattern.exec(text)
  if (!found) return null
  const [whole, phone, emergency] = found
  const end = found.index + whole.length
  if (pattern === EMAIL) return [found.index, end, end - found.index - whole.indexOf('@') > MAX_DOMAIN + 1 ? null : undefined]
  return [found.index, end, emergency ?? e164(phone as string) ?? null]
}

/** HTML-escaped text with its phone numbers and e-mail addresses made links (the text is already escaped; the matches hold nothing to escape). */
export function linkContactsInHtmlText(escaped: string): string {
  if (!/[0-9@]/.test(escaped)) return escaped
  return contactParts(escaped)
    .map((part) => (typeof part === 'string' ? part : `<a href="${part.href}">${part.kind === 'tel' ? phoneText(part.text) : part.text}</a>`))
    .join('')
}
