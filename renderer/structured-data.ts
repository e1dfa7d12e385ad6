import type { Article, EntryData, Establishment, Insurance, Job, SiteSettings, SiteSettingsData } from '../shared/content-types.ts'
import type { PagePayload } from '../shared/payload.ts'
import { dataOf, entriesOf } from './screens/types.ts'
import { publicationDate } from './components/format.ts'

type JsonLd = Record<string, unknown>

/** Where each nested page sits: the overview above it, for breadcrumbs. */
const PARENTS: Record<string, { path: string; name: string }> = {
  '/jobs': { path: '/werken-bij', name: 'Werken bij' },
  '/werken-bij': { path: '/werken-bij', name: 'Werken bij' },
  '/topical': { path: '/actueel', name: 'Actueel' },
  '/actueel': { path: '/actueel', name: 'Actueel' },
  '/services': { path: '/services', name: 'Diensten' },
  '/onze-dienstverlening': { path: '/onze-dienstverlening', name: 'Onze dienstverlening' },
  '/onze-verzekeringen': { path: '/onze-verzekeringen', name: 'Onze verzekeringen' },
}

export interface Crumb {
  name: string
  path: string
}

/** Home, the overview and the page itself, for a page one level down. */
export function breadcrumbsOf(payload: PagePayload, title: string | undefined): Crumb[] {
  const path = payload.canonicalPath
  if (!path || !title) return []
  const cut = path.lastIndexOf('/')
  if (cut <= 0) return []
  const parent = PARENTS[path.slice(0, cut)]
  return parent ? [{ name: 'Home', path: '/' }, parent, { name: title, path }] : []
}

const address = (street: string, postalCode: string, city: string) => ({
  '@type': 'PostalAddress',
  streetAddress: street,
  postalCode,
  addressLocality: city,
  addressCountry: 'NL',
})

const absolute = (siteUrl: string, path: string): string => (/^https?:\/\//.test(path) ? path : `${siteUrl}${path}`)

function agency(site: SiteSettings, siteUrl: string): JsonLd {
  return {
    '@type': 'InsuranceAgency',
    '@id': `${siteUrl}/#organisatie`,
    name: site.companyName,
    url: `${siteUrl}/`,
    logo: `${siteUrl}/favicon.svg`,
    telephone: site.phone,
    email: site.email,
    address: address(site.street, site.postalCode, site.city),
    identifier: [
      { '@type': 'PropertyValue', propertyID: 'AFM', value: site.afmNumber },
      { '@type': 'PropertyValue', propertyID: 'KvK', value: site.kvkNumber },
    ],
    parentOrganization: { '@type': 'Organization', name: 'Licent' },
  }
}

const DAYS: Record<string, string> = {
  maandag: 'Monday',
  dinsdag: 'Tuesday',
  woensdag: 'Wednesday',
  donderdag: 'Thursday',
  vrijdag: 'Friday',
  zaterdag: 'Saturday',
  zondag: 'Sunday',
}

function openingHours(rows: { day: string; hours: string }[]): JsonLd[] {
  return rows.flatMap((row) => {
    const match = /(\d{1,2}:\d{2})\s*[–-]\s*(\d{1,2}:\d{2})/.exec(row.hours)
    const day = DAYS[row.day.toLowerCase()]
    return match && day ? [{ '@type': 'OpeningHoursSpecification', dayOfWeek: day, opens: match[1], closes: match[2] }] : []
  })
}

const plain = (html: string | null | undefined): string => (html ?? '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()

/** The structured data of a page: the agency on home, a job posting, a news article, the offices, breadcrumbs. */
export function structuredData(payload: PagePayload, title: string | undefined): JsonLd[] {
  const site = dataOf<SiteSettingsData>(payload, 'site')?.globalSet
  if (payload.screen === 'error' || !site) return []
  const { siteUrl } = payload
  const url = payload.canonicalPath ? `${siteUrl}${payload.canonicalPath}` : undefined
  const items: JsonLd[] = []
  if (payload.screen === 'home') items.push(agency(site, siteUrl))
  if (payload.screen === 'job') {
    const job = dataOf<EntryData<Job>>(payload, 'entry')?.entry
    if (job) {
      items.push({
        '@type': 'JobPosting',
        title: job.title,
        description: [job.intro, job.whatYouDo, job.whatYouBring, job.whatWeOffer].filter(Boolean).map((part) => `<p>${plain(part)}</p>`).join(''),
        // A preview's draft or scheduled job was never posted: no date it may get (components/draft-marker.tsx).
        ...(publicationDate(job) ? { datePosted: job.postDate } : {}),
        ...(job.validThrough ? { validThrough: job.validThrough } : {}),
        employmentType: /^(3[2-9]|40)/.test(job.hours ?? '') ? 'FULL_TIME' : 'PART_TIME',
        hiringOrganization: { '@type': 'Organization', name: site.companyName, sameAs: `${siteUrl}/` },
        jobLocation: { '@type': 'Place', address: { '@type': 'PostalAddress', addressLocality: job.location, addressCountry: 'NL' } },
        ...(job.salaryMin !== null || job.salaryMax !== null
          ? {
              baseSalary: {
                '@type': 'MonetaryAmount',
                currency: 'EUR',
                value: { '@type': 'QuantitativeValue', minValue: job.salaryMin, maxValue: job.salaryMax, unitText: 'MONTH' },
              },
            }
          : {}),

        url,
      })
    }
  }
  if (payload.screen === 'insurance') {
    const insurance = dataOf<EntryData<Insurance>>(payload, 'entry')?.entry
    if (insurance) {
      items.push({
        '@type': 'Service',
        name: insurance.title,
        description: insurance.intro,
        provider: { '@id': `${siteUrl}/#organisatie`, '@type': 'InsuranceAgency', name: site.companyName },
        url,
      })
    }
  }
  if (payload.screen === 'article') {
    const article = dataOf<EntryData<Article>>(payload, 'entry')?.entry
    if (article) {
      const image = article.image[0]
      items.push({
        '@type': 'NewsArticle',
        headline: article.title,
        description: article.intro,
        // A preview's draft or scheduled article was never published: no datePublished it may get.
        ...(publicationDate(article) ? { datePublished: article.postDate, dateModified: article.dateUpdated ?? article.postDate } : {}),
        author: { '@type': 'Person', name: article.author?.fullName ?? site.companyName },
        publisher: { '@type': 'Organization', name: site.companyName, logo: { '@type': 'ImageObject', url: `${siteUrl}/favicon.svg` } },
        ...(image ? { image: [absolute(siteUrl, image.shareUrl ?? image.url)] } : {}),
        mainEntityOfPage: url,
        inLanguage: 'nl-NL',
      })
    }
  }
  if (payload.screen === 'establishments') {
    const offices = entriesOf<Establishment>(payload, 'establishments')
    for (const office of offices) {
      items.push({
        '@type': 'InsuranceAgency',
        name: `${site.companyName} – ${office.title}`,
        url: `${siteUrl}/kantoren#${office.slug}`,
        telephone: office.phone,
        email: office.email,
        address: address(office.street, office.postalCode, office.city),
        ...(office.latitude !== null && office.longitude !== null
          ? { geo: { '@type': 'GeoCoordinates', latitude: office.latitude, longitude: office.longitude } }
          : {}),
        openingHoursSpecification: openingHours(office.openingHours ?? []),
        ...(office.mapUrl ? { hasMap: office.mapUrl } : {}),
        parentOrganization: { '@id': `${siteUrl}/#organisatie` },
      })
    }
  }
  const crumbs = breadcrumbsOf(payload, title)
  if (crumbs.length > 0) {
    items.push({
      '@type': 'BreadcrumbList',
      itemListElement: crumbs.map((crumb, index) => ({ '@type': 'ListItem', position: index + 1, name: crumb.name, item: `${siteUrl}${crumb.path}` })),
    })
  }
  return items.map((item) => ({ '@context': 'https://schema.org', ...item }))
}
