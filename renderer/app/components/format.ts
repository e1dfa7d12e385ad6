import type { EntryBase } from '../../../shared/content-types.ts'

/**
 * Intl's formatters are made on first use, not when the module loads: every
 * page loads this module, and in the browser a DateTimeFormat costs about
 * 40 ms of main thread to make (150 ms on Lighthouse's slowed-down phone).
 * A NumberFormat for euros cost the same on every job page (a task of 100 ms
 * in Lighthouse's run), so amounts are written by hand too.
 */
let dateFormat: Intl.DateTimeFormat | undefined

/**
 * `€ 3.200`: whole euros as Intl's `nl-NL` currency format writes them (a
 * no-break space after the sign, dots between thousands, halves rounded away
 * from zero; test/renderer/format.test.ts compares the two).
 */
function euros(amount: number): string {
  const whole = Math.round(Math.abs(amount))
  const sign = amount < 0 || Object.is(amount, -0) ? '-' : ''
  return `€\u00a0${sign}${String(whole).replace(/\B(?=(\d{3})+$)/g, '.')}`
}

const MONTHS = ['januari', 'februari', 'maart', 'april', 'mei', 'juni', 'juli', 'augustus', 'september', 'oktober', 'november', 'december']
const HOUR_MS = 3_600_000
/** Since 1996 Dutch clocks follow the EU's rule; earlier dates go through Intl. */
const FIRST_EU_RULE_YEAR = 1996

/** 01:00 UTC on the last Sunday of `month` (0-based) of `year`: when the EU's clocks change. */
function clockChange(year: number, month: number): number {
  const lastDay = new Date(Date.UTC(year, month + 1, 0, 1))
  return lastDay.getTime() - lastDay.getUTCDay() * 24 * HOUR_MS
}

/**
 * `date` as `14 maart 2025` on the Dutch calendar: summer time (UTC+2) from
 * the last Sunday of March to the last Sunday of October, UTC+1 otherwise.
 * The same text as Intl's `nl-NL` in Europe/Amsterdam (test/renderer/format.test.ts)
 * without making a DateTimeFormat on every page that shows a date.
 */
function dutchDate(date: Date): string {
  const year = date.getUTCFullYear()
  if (year < FIRST_EU_RULE_YEAR) {
    dateFormat ??= new Intl.DateTimeFormat('nl-NL', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'Europe/Amsterdam' })
    return dateFormat.format(date)
  }
  const time = date.getTime()
  const summer = time >= clockChange(year, 2) && time < clockChange(year, 9)
  const local = new Date(time + (summer ? 2 : 1) * HOUR_MS)
  return `${local.getUTCDate()} ${MONTHS[local.getUTCMonth()]} ${local.getUTCFullYear()}`
}

/** Dates already formatted: Intl's formatter showed in the render profile, and a site has few dates. */
const formattedDates = new Map<string, string>()
const MAX_FORMATTED_DATES = 2000

/** `14 maart 2025`, the same on server and client. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return ''
  let formatted = formattedDates.get(iso)
  if (formatted === undefined) {
    const date = new Date(iso)
    formatted = Number.isNaN(date.getTime()) ? '' : dutchDate(date)
    if (formattedDates.size >= MAX_FORMATTED_DATES) formattedDates.clear()
    formattedDates.set(iso, formatted)
  }
  return formatted
}

export function formatSalary(min: number | null, max: number | null): string | undefined {
  if (min === null && max === null) return undefined
  if (min !== null && max !== null) return `${euros(min)} – ${euros(max)} bruto per maand`
  return `${euros((min ?? max) as number)} bruto per maand`
}

/** Site path of a Craft uri (`__home__` is the home page). */
export function pathOfUri(uri: string | null | undefined): string {
  if (!uri || uri === '__home__') return '/'
  return `/${uri}`
}

export { phoneText, telHref } from '../../../shared/contact-links.ts'

/**
 * Whether a preview shows an entry as visitors do not see it: a draft
 * (`isDraft`, of a published entry or of one never published), or an entry
 * whose status is not `live`. Craft's status of an entry is `live` only when
 * it is enabled and its post date has come (craftcms/cms Entry::getStatus);
 * otherwise `disabled`, `pending`, `expired`, or `enabled` without a post date.
 */
export function isUnpublished(entry: Pick<EntryBase, 'isDraft' | 'status'>): boolean {
  return entry.isDraft === true || (entry.status != null && entry.status !== 'live')
}

/**
 * The date an entry was published, when it was: an unpublished entry's post
 * date (none, one an editor set ahead, or the published version's under a
 * draft) is no publication date of what the page shows.
 */
export function publicationDate(entry: Pick<EntryBase, 'isDraft' | 'status' | 'postDate'>): { iso: string; text: string } | undefined {
  if (isUnpublished(entry) || !entry.postDate) return undefined
  const text = formatDate(entry.postDate)
  return text ? { iso: entry.postDate, text } : undefined
}
