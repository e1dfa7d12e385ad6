import type { SiteSettings, SiteSettingsData } from '../../shared/content-types.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { dataOf } from './screens/types.ts'

export type JsonLd = Record<string, unknown>

/**
 * A screen's own structured data (a job posting, a news article, the offices,
 * a service): a static `jsonLd` of its component (screens/registry.ts), so
 * its code is in the screen's chunk, not in the code every page loads.
 */
export type ScreenJsonLd = (payload: PagePayload, site: SiteSettings, siteUrl: string, url: string | undefined) => JsonLd[]

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

/** The structured data of a page: the agency on home, the screen's own (`screenJsonLd`: a job posting, a news article, the offices, a service), breadcrumbs. */
export function structuredData(payload: PagePayload, title: string | undefined, screenJsonLd?: ScreenJsonLd): JsonLd[] {
  const site = dataOf<SiteSettingsData>(payload, 'site')?.globalSet
  if (payload.screen === 'error' || !site) return []
  const { siteUrl } = payload
  const url = payload.canonicalPath ? `${siteUrl}${payload.canonicalPath}` : undefined
  const items: JsonLd[] = []
  if (payload.screen === 'home') items.push(agency(site, siteUrl))
  // The screen's own items come with its chunk (its component's `jsonLd`), not with every page's code.
  if (screenJsonLd) items.push(...screenJsonLd(payload, site, siteUrl, url))
  const crumbs = breadcrumbsOf(payload, title)
  if (crumbs.length > 0) {
    items.push({
      '@type': 'BreadcrumbList',
      itemListElement: crumbs.map((crumb, index) => ({ '@type': 'ListItem', position: index + 1, name: crumb.name, item: `${siteUrl}${crumb.path}` })),
    })
  }
  return items.map((item) => ({ '@context': 'https://schema.org', ...item }))
}
