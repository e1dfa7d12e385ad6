const dateFormat = new Intl.DateTimeFormat('nl-NL', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'Europe/Amsterdam' })
const euro = new Intl.NumberFormat('nl-NL', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 })

/** Dates already formatted: Intl's formatter showed in the render profile, and a site has few dates. */
const formattedDates = new Map<string, string>()
const MAX_FORMATTED_DATES = 2000

/** `14 maart 2025`, the same on server and client. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return ''
  let formatted = formattedDates.get(iso)
  if (formatted === undefined) {
    const date = new Date(iso)
    formatted = Number.isNaN(date.getTime()) ? '' : dateFormat.format(date)
    if (formattedDates.size >= MAX_FORMATTED_DATES) formattedDates.clear()
    formattedDates.set(iso, formatted)
  }
  return formatted
}

export function formatSalary(min: number | null, max: number | null): string | undefined {
  if (min === null && max === null) return undefined
  if (min !== null && max !== null) return `${euro.format(min)} – ${euro.format(max)} bruto per maand`
  return `${euro.format((min ?? max) as number)} bruto per maand`
}

/** Site path of a Craft uri (`__home__` is the home page). */
export function pathOfUri(uri: string | null | undefined): string {
  if (!uri || uri === '__home__') return '/'
  return `/${uri}`
}

/** A phone number that never breaks across lines: non-breaking spaces and hyphens. */
export function phoneText(phone: string): string {
  return phone.replace(/ /g, '\u00a0').replace(/-/g, '\u2011')
}

/** The tel: address of a written phone number. */
export function telHref(phone: string): string {
  return `tel:${phone.replace(/[^0-9+]/g, '')}`
}
