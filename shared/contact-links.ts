/**
 * Dutch phone numbers and e-mail addresses as the site writes them, and the
 * links they become: a visitor with damage, on a phone, taps a number. Kept
 * small: the browser's bundle carries it for the plain text of every page.
 *
 * Found in time linear in the text, whatever an editor pastes: a number by a
 * pattern of bounded length, an address from its @ outwards (at most 64
 * characters of local part and 253 of domain, as RFC 5321 allows them), and
 * no stretch of text is searched twice for the same kind of match.
 */

/**
 * A phone number (ten digits from its leading 0, or +31 / 0031 and nine,
 * with a space, two spaces, a hyphen or " - " between groups) or the
 * emergency number where the text says to call it ("Bel 112"), not glued to
 * a word, a digit, a plus or an @ on either side. A match is at most 40
 * characters, and each separator can be read one way only: a start is
 * rejected in a bounded number of steps.
 */
const NUMBER = /(?<![\w+@.\u2011-])(?:((?:\+31|0031|0)(?:(?:[ \u00a0](?:[-\u2011][ \u00a0]?|[ \u00a0])?|[-\u2011][ \u00a0]?)?\d){9})|(?<=\bbel[ \u00a0])(112))(?![\w@\u2011]|[-.]\w)/gi
/** An address's domain from just after its @: labels, a top-level domain of letters, nothing glued after it. Only ever tried on a run of at most 255 domain characters (domainEnd). */
const DOMAIN = /[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}(?![\w@\u2011]|[-.]\w)/iy
const MAX_LOCAL_PART = 64
const MAX_DOMAIN = 253

const isWordCode = (code: number): boolean => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
/** `[\w.%+-]`: what an address's local part is made of. */
const isLocalCode = (code: number): boolean => isWordCode(code) || code === 46 || code === 37 || code === 43 || code === 45
/** `[\w.-]`: what its domain is made of. */
const isDomainCode = (code: number): boolean => isWordCode(code) || code === 46 || code === 45
/** `[\w+@.\u2011-]`: what may not come just before a number or an address (it would be glued to it). */
const isGluedCode = (code: number): boolean => (isLocalCode(code) && code !== 37) || code === 64 || code === 0x2011

/** The characters a scan looked at, counted where a test wants to see that the work grows with the text and no faster. */
export interface ScanMeter {
  looked: number
}

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

/** The text in pieces: plain runs, and each phone number or e-mail address with its link. With a meter, the work is counted and nothing is remembered. */
export function contactParts(text: string, meter?: ScanMeter): ContactPart[] {
  // Nothing to link without a digit or an @: most texts, at the cost of one scan.
  if (!/[0-9@]/.test(text)) return text === '' ? [] : [text]
  if (meter || text.length > MAX_KNOWN_TEXT_LENGTH) return cutContacts(text, meter)
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

function cutContacts(text: string, meter: ScanMeter = { looked: 0 }): ContactPart[] {
  const parts: ContactPart[] = []
  let last = 0
  for (const match of contactMatches(text, meter)) {
    const number = match.kind === 'emergency' ? match.text : match.kind === 'phone' ? e164(match.text) : undefined
    // A number that is not Dutch is passed over, as text.
    if (match.kind === 'phone' && !number) continue
    parts.push(text.slice(last, match.index), number ? { kind: 'tel', text: match.text, href: `tel:${number}` } : { kind: 'mailto', text: match.text, href: `mailto:${match.text}` })
    last = match.index + match.text.length
  }
  parts.push(text.slice(last))
  return parts.filter((part) => part !== '')
}

interface ContactMatch {
  kind: 'phone' | 'emergency' | 'email'
  index: number
  text: string
}

/**
 * The numbers and addresses of a text from left to right, none overlapping
 * the one before: at each place the leftmost of the next number and the
 * next address (a number first where both start at once, 112 last). Each
 * kind's next match is kept until a match of the other kind passes it.
 */
function* contactMatches(text: string, meter: ScanMeter): Generator<ContactMatch> {
  let from = 0
  let number = nextNumber(text, from, meter)
  let email = nextEmail(text, from, meter)
  while (number || email) {
    const numberFirst = number && (!email || number.index < email.index || (number.index === email.index && number.kind === 'phone'))
    const match = (numberFirst ? number : email) as ContactMatch
    yield match
    from = match.index + match.text.length
    if (number && number.index < from) number = nextNumber(text, from, meter)
    if (email && email.index < from) email = nextEmail(text, from, meter)
  }
}

function nextNumber(text: string, from: number, meter: ScanMeter): ContactMatch | undefined {
  NUMBER.lastIndex = from
  const found = NUMBER.exec(text)
  meter.looked += (found ? NUMBER.lastIndex : text.length) - from
  if (!found) return undefined
  return found[1] ? { kind: 'phone', index: found.index, text: found[1] } : { kind: 'emergency', index: found.index, text: found[0] }
}

/** The leftmost address that starts at `from` or later: each @ after it in turn, until one has a local part and a domain. */
function nextEmail(text: string, from: number, meter: ScanMeter): ContactMatch | undefined {
  let searched = from + 1
  while (searched < text.length) {
    const at = text.indexOf('@', searched)
    meter.looked += (at === -1 ? text.length : at + 1) - searched
    if (at === -1) return undefined
    searched = at + 1
    const start = localPartStart(text, at, from, meter)
    const end = start === undefined ? undefined : domainEnd(text, at, meter)
    if (start !== undefined && end !== undefined) return { kind: 'email', index: start, text: text.slice(start, end) }
  }
  return undefined
}

/**
 * Where the address of the @ at `at` starts: the leftmost place, not before
 * `from` and at most 64 characters back, that begins a run of local-part
 * characters up to the @ and is not glued to what precedes it (of those
 * characters only a % may come before an address). Undefined when none is.
 */
function localPartStart(text: string, at: number, from: number, meter: ScanMeter): number | undefined {
  let start = at
  while (start > from && at - start < MAX_LOCAL_PART && isLocalCode(text.charCodeAt(start - 1))) start--
  meter.looked += at - start
  if (start === at) return undefined
  if (start === 0 || !isGluedCode(text.charCodeAt(start - 1))) return start
  // Within the run, only after a % (already looked at).
  for (let i = start; i < at - 1; i++) if (text.charCodeAt(i) === 37) return i + 1
  return undefined
}

/**
 * Where the domain after the @ at `at` ends, or undefined when what follows
 * is no domain of at most 253 characters. The pattern is given the run of
 * domain characters after the @ only when it ends within 255 of them (the
 * domain's 253, and two that say whether it ends there), so that it cannot
 * read further.
 */
function domainEnd(text: string, at: number, meter: ScanMeter): number | undefined {
  const limit = Math.min(text.length, at + 1 + MAX_DOMAIN + 2)
  let end = at + 1
  while (end < limit && isDomainCode(text.charCodeAt(end))) end++
  meter.looked += end - at
  if (end === limit && limit < text.length && isDomainCode(text.charCodeAt(limit))) return undefined
  DOMAIN.lastIndex = at + 1
  return DOMAIN.test(text) && DOMAIN.lastIndex - at - 1 <= MAX_DOMAIN ? DOMAIN.lastIndex : undefined
}

/** HTML-escaped text with its phone numbers and e-mail addresses made links (the text is already escaped; the matches hold nothing to escape). */
export function linkContactsInHtmlText(escaped: string): string {
  if (!/[0-9@]/.test(escaped)) return escaped
  return contactParts(escaped)
    .map((part) => (typeof part === 'string' ? part : `<a href="${part.href}">${part.kind === 'tel' ? phoneText(part.text) : part.text}</a>`))
    .join('')
}
