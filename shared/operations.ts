import { IMAGE_WIDTHS, SITE_SETTINGS_HANDLE } from './constants.ts'
import { CHANNELS, SINGLE_SECTIONS, entryTypeName, withProduct } from './sections.ts'

/**
 * The GraphQL documents the product uses: the gateway's allowlist. Singles'
 * type names contain the site handle, so the documents are made once per
 * site handle when a service starts.
 */
export type OperationName =
  | 'SiteSettings'
  | 'HomePage'
  | 'SinglePage'
  | 'InsuranceList'
  | 'ServiceList'
  | 'ServiceBySlug'
  | 'JobList'
  | 'JobBySlug'
  | 'ArticleList'
  | 'ArticleBySlug'
  | 'LatestArticles'
  | 'EstablishmentList'
  | 'NotFound'
  | 'Redirects'
  | 'Sitemap'

export type Operations = Readonly<Record<OperationName, string>>

const ENTRY_BASE = `fragment EntryBase on EntryInterface { id title slug uri postDate dateUpdated sectionHandle typeHandle }`
const IMAGE = `fragment Image on AssetInterface { id url width height alt title srcset(sizes: ${JSON.stringify(IMAGE_WIDTHS.map((width) => `${width}w`))}) }`

const channelType = (channel: keyof typeof CHANNELS): string =>
  entryTypeName(CHANNELS[channel].section, CHANNELS[channel].type)

export function createOperations(product: string): Operations {
  const singleType = (template: string): string => {
    const section = withProduct(template, product)
    return entryTypeName(section, section)
  }
  const singleFragments = SINGLE_SECTIONS.map(
    (template) => `... on ${singleType(template)} { intro text seoDescription }`,
  ).join(' ')
  const insurance = channelType('insurances')
  const service = channelType('services')
  const job = channelType('jobs')
  const article = channelType('topical')
  const establishment = channelType('establishments')
  const articleSummary = `...EntryBase ... on ${article} { intro author image { ...Image } }`

  return {
    SiteSettings: `query SiteSettings($site: [String]) {
  globalSet(handle: "${SITE_SETTINGS_HANDLE}", site: $site) {
    ... on ${SITE_SETTINGS_HANDLE}_GlobalSet {
      companyName tagline phone damagePhone email street postalCode city
      afmNumber kifidNumber kvkNumber footerText
      mainNavigation { label url }
      footerNavigation { label url }
      openingHours { day hours }
    }
  }
}`,
    HomePage: `query HomePage($section: [String], $site: [String]) {
  entry(section: $section, site: $site) {
    ...EntryBase
    ... on ${singleType('{product}Home')} {
      intro text seoDescription ctaHeading ctaText ctaLinkLabel ctaLinkUrl
      highlightedInsurances { ...EntryBase ... on ${insurance} { category intro } }
      highlightedServices { ...EntryBase ... on ${service} { intro } }
    }
  }
}
${ENTRY_BASE}`,
    SinglePage: `query SinglePage($section: [String], $site: [String]) {
  entry(section: $section, site: $site) { ...EntryBase ${singleFragments} }
}
${ENTRY_BASE}`,
    InsuranceList: `query InsuranceList($site: [String]) {
  entries(section: "${CHANNELS.insurances.section}", site: $site, orderBy: "title ASC") {
    ...EntryBase ... on ${insurance} { category intro }
  }
}
${ENTRY_BASE}`,
    ServiceList: `query ServiceList($site: [String]) {
  entries(section: "${CHANNELS.services.section}", site: $site, orderBy: "title ASC") {
    ...EntryBase ... on ${service} { intro }
  }
}
${ENTRY_BASE}`,
    ServiceBySlug: `query ServiceBySlug($slug: [String], $site: [String]) {
  entry(section: "${CHANNELS.services.section}", slug: $slug, site: $site) {
    ...EntryBase ... on ${service} { intro text }
  }
}
${ENTRY_BASE}`,
    JobList: `query JobList($site: [String]) {
  entries(section: "${CHANNELS.jobs.section}", site: $site, orderBy: "postDate DESC") {
    ...EntryBase ... on ${job} { intro hours location salaryMin salaryMax }
  }
}
${ENTRY_BASE}`,
    JobBySlug: `query JobBySlug($slug: [String], $site: [String]) {
  entry(section: "${CHANNELS.jobs.section}", slug: $slug, site: $site) {
    ...EntryBase
    ... on ${job} {
      intro hours location employmentType salaryMin salaryMax validThrough
      whatYouDo whatYouBring whatWeOffer howToApply
    }
  }
}
${ENTRY_BASE}`,
    ArticleList: `query ArticleList($site: [String], $limit: Int, $offset: Int) {
  entries(section: "${CHANNELS.topical.section}", site: $site, limit: $limit, offset: $offset, orderBy: "postDate DESC") {
    ${articleSummary}
  }
  entryCount(section: "${CHANNELS.topical.section}", site: $site)
}
${ENTRY_BASE}
${IMAGE}`,
    LatestArticles: `query LatestArticles($site: [String], $limit: Int) {
  entries(section: "${CHANNELS.topical.section}", site: $site, limit: $limit, orderBy: "postDate DESC") {
    ${articleSummary}
  }
}
${ENTRY_BASE}
${IMAGE}`,
    ArticleBySlug: `query ArticleBySlug($slug: [String], $site: [String]) {
  entry(section: "${CHANNELS.topical.section}", slug: $slug, site: $site) {
    ...EntryBase ... on ${article} { intro text author image { ...Image } }
  }
}
${ENTRY_BASE}
${IMAGE}`,
    EstablishmentList: `query EstablishmentList($site: [String]) {
  entries(section: "${CHANNELS.establishments.section}", site: $site, orderBy: "title ASC") {
    ...EntryBase
    ... on ${establishment} {
      intro street postalCode city phone email mapUrl latitude longitude
      openingHours { day hours }
    }
  }
}
${ENTRY_BASE}`,
    Sitemap: `query Sitemap($site: [String]) {
  entries(section: ${JSON.stringify([...SINGLE_SECTIONS.map((template) => withProduct(template, product)), CHANNELS.jobs.section, CHANNELS.topical.section, CHANNELS.services.section])}, site: $site) {
    sectionHandle slug dateUpdated
  }
}`,
    Redirects: `query Redirects($site: [String]) {
  entries(section: "${CHANNELS.redirects.section}", site: $site, orderBy: "id ASC") {
    id ... on ${channelType('redirects')} { redirectSrcUrl redirectDestUrl redirectHttpCode }
  }
}`,
    NotFound: `query NotFound($site: [String]) {
  entry(section: "${CHANNELS.notFound.section}", site: $site) {
    title ... on ${channelType('notFound')} { text }
  }
}`,
  }
}

/** Operations whose answers are never stored in any cache. */
export const NEVER_CACHED_OPERATIONS: ReadonlySet<OperationName> = new Set(['NotFound'])

/** Fields that Craft delivers as HTML: sanitised by the gateway before anything caches or renders them. */
export const RICH_TEXT_FIELDS: ReadonlySet<string> = new Set(['text', 'whatYouDo', 'whatYouBring', 'whatWeOffer', 'howToApply'])
