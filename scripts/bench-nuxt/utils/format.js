// What the page's text needs: Dutch dates and a telephone number as a tel: link.
const DATE = new Intl.DateTimeFormat('nl-NL', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'Europe/Amsterdam' })

export const dutchDate = (iso) => DATE.format(new Date(iso))

/** 088 - 123 45 99 as +31881234599. */
export const telHref = (phone) => `tel:+31${phone.replace(/\D/g, '').replace(/^0/, '')}`

/** The number shown with a non-breaking hyphen, so that it never wraps. */
export const phoneText = (phone) => phone.replace(' - ', ' \u2011 ')

/** A CMS uri as the page's path. */
export const entryPath = (uri) => `/${uri}`
