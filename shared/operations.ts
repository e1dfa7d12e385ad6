import { IMAGE_WIDTHS, PRODUCT_PLACEHOLDER, SHARE_IMAGE, SITE_SETTINGS_HANDLE } from './constants.ts'
import { type CraftVersion, DEFAULT_CRAFT_VERSION, entryTypeName, globalSetTypeName } from './craft-naming.ts'
import { CHANNELS, SINGLE_SECTIONS, type SingleSectionTemplate, withProduct } from './sections.ts'
import { MODERN_IMAGE_SELECTIONS } from './image-sources.ts'

/**
 * The GraphQL documents the product uses: the gateway's allowlist. Type
 * names depend on the site handle (singles' sections carry it) and on the
 * Craft major's naming, so the documents are made per site handle and major.
 * Every single has a document of its own: a section that is missing or that
 * the schema may not read invalidates only the pages that need it.
 */
export type FixedOperationName =
  | 'SiteSettings'
  | 'HomePage'
  | 'InsuranceList'
  | 'InsuranceBySlug'
  | 'InsurerList'
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
  | 'EntriesAround'

type PlainSingleTemplate = Exclude<SingleSectionTemplate, '{product}Home'>
type WithoutProduct<T extends string> = T extends `{product}${infer Rest}` ? Rest : T

/** The document of one single section, e.g. `AboutPage` for `{product}About`. */
export type SinglePageOperationName = `${Capitalize<WithoutProduct<PlainSingleTemplate>>}Page`

export type OperationName = FixedOperationName | SinglePageOperationName

export type Operations = Readonly<Record<OperationName, string>>

/** The singles served by the plain page document (the home page has a document of its own). */
const PLAIN_SINGLES = SINGLE_SECTIONS.filter((template): template is PlainSingleTemplate => template !== '{product}Home')

/** `{product}About` -> `AboutPage`, `aboutJobsOpenApplication` -> `AboutJobsOpenApplicationPage`. */
export function singlePageOperation(template: string): SinglePageOperationName {
  if (!(PLAIN_SINGLES as readonly string[]).includes(template)) throw new Error(`no single section ${template}`)
  const name = template.split(PRODUCT_PLACEHOLDER).join('')
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}Page` as SinglePageOperationName
}

/**
 * `status`, `isDraft` and `revisionId` tell a preview that shows a draft, an
 * unpublished entry or an older version from one that shows only the
 * published content (preview-bar.tsx). Both majors have them on
 * EntryInterface. Craft's `isDraft` is `draftId !== null`, so it covers
 * provisional drafts (auto-saved changes) too; `isProvisionalDraft` is no
 * GraphQL field in either major.
 */
const ENTRY_BASE = `fragment EntryBase on EntryInterface { id title slug uri postDate dateUpdated sectionHandle typeHandle status isDraft revisionId }`
/**
 * `shareUrl`: a raster transform of the share size, for og:image and JSON-LD
 * (the original upload may be an SVG or a multi-megabyte photo).
 * `webp480` …: the same widths as `srcset`, in the modern format (image-sources.ts).
 */
const IMAGE = `fragment Image on AssetInterface { id url width height alt title srcset(sizes: ${JSON.stringify(IMAGE_WIDTHS.map((width) => `${width}w`))}) ${MODERN_IMAGE_SELECTIONS} shareUrl: url(width: ${SHARE_IMAGE.width}, height: ${SHARE_IMAGE.height}, mode: "crop", format: "jpg") }`

/** What the schema offers beyond what every site's schema has. */
export interface SchemaFeatures {
  /**
   * Entries' native `author`: Craft adds it to the schema only when the
   * schema may read users; without it articles are shown without an author.
   */
  author: boolean
}

/** The names of the entry types the documents select on, in the naming of one Craft major and for one site. */
interface EntryTypes {
  /** A channel's one entry type, e.g. `insurances_insurance_Entry` (Craft 4) or `insurance_Entry` (Craft 5). */
  channel(name: keyof typeof CHANNELS): string
  /** A single's entry type, named after its section. */
  single(template: string): string
}

function entryTypesOf(product: string, version: CraftVersion): EntryTypes {
  return {
    channel: (name) => entryTypeName(version, CHANNELS[name].section, CHANNELS[name].type),
    single: (template) => {
      const section = withProduct(template, product)
      return entryTypeName(version, section, section)
    },
  }
}

/** One document per plain single, e.g. `AboutPage`. */
function singlePageDocuments(product: string, types: EntryTypes): Record<SinglePageOperationName, string> {
  return Object.fromEntries(
    PLAIN_SINGLES.map((template) => {
      const name = singlePageOperation(template)
      const section = withProduct(template, product)
      return [
        name,
        `query ${name}($site: [String]) {
  entry(section: "${section}", site: $site) { ...EntryBase ... on ${types.single(template)} { intro text seoDescription } }
}
${ENTRY_BASE}`,
      ]
    }),
  ) as Record<SinglePageOperationName, string>
}

/** A function, not a constant: the browser bundle imports this module, and a call at the top level would ship the document to every visitor. */
const siteSettingsDocument = (): string => `query SiteSettings($site: [String]) {
  globalSet(handle: "${SITE_SETTINGS_HANDLE}", site: $site) {
    ... on ${globalSetTypeName(SITE_SETTINGS_HANDLE)} {
      companyName tagline phone damagePhone email street postalCode city
      afmNumber kifidNumber kvkNumber footerText
      afmRegisterUrl kifidRegisterUrl kvkRegisterUrl
      mainNavigation { label url }
      footerNavigation { label url }
      openingHours { day hours }
    }
  }
}`

function homePageDocument(types: EntryTypes): string {
  return `query HomePage($section: [String], $site: [String]) {
  entry(section: $section, site: $site) {
    ...EntryBase
    ... on ${types.single('{product}Home')} {
      intro text seoDescription ctaHeading ctaText ctaLinkLabel ctaLinkUrl
      highlightedInsurances { ...EntryBase ... on ${types.channel('insurances')} { category intro } }
      highlightedServices { ...EntryBase ... on ${types.channel('services')} { intro } }
    }
  }
}
${ENTRY_BASE}`
}

function insuranceDocuments(types: EntryTypes): Pick<Operations, 'InsuranceList' | 'InsuranceBySlug' | 'InsurerList'> {
  const insurance = types.channel('insurances')
  const insurer = types.channel('insurers')
  return {
    InsuranceList: `query InsuranceList($site: [String], $limit: Int, $offset: Int) {
  entryCount(section: "${CHANNELS.insurances.section}", site: $site)
  entries(section: "${CHANNELS.insurances.section}", site: $site, limit: $limit, offset: $offset, orderBy: "title ASC") {
    ...EntryBase ... on ${insurance} { category intro }
  }
}
${ENTRY_BASE}`,
    InsuranceBySlug: `query InsuranceBySlug($slug: [String], $site: [String]) {
  entry(section: "${CHANNELS.insurances.section}", slug: $slug, site: $site) {
    ...EntryBase
    ... on ${insurance} {
      category intro text
      coverage exclusions deductible adviceEmail
      insurers { ...EntryBase ... on ${insurer} { website } }
    }
  }
}
${ENTRY_BASE}`,
    InsurerList: `query InsurerList($site: [String]) {
  entries(section: "${CHANNELS.insurers.section}", site: $site, orderBy: "title ASC") {
    ...EntryBase ... on ${insurer} { website }
  }
}
${ENTRY_BASE}`,
  }
}

function serviceDocuments(types: EntryTypes): Pick<Operations, 'ServiceList' | 'ServiceBySlug'> {
  const service = types.channel('services')
  return {
    ServiceList: `query ServiceList($site: [String], $limit: Int, $offset: Int) {
  entryCount(section: "${CHANNELS.services.section}", site: $site)
  entries(section: "${CHANNELS.services.section}", site: $site, limit: $limit, offset: $offset) {
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
  }
}

function jobDocuments(types: EntryTypes): Pick<Operations, 'JobList' | 'JobBySlug'> {
  const job = types.channel('jobs')
  return {
    JobList: `query JobList($site: [String], $limit: Int, $offset: Int) {
  entryCount(section: "${CHANNELS.jobs.section}", site: $site)
  entries(section: "${CHANNELS.jobs.section}", site: $site, limit: $limit, offset: $offset, orderBy: "postDate DESC") {
    ...EntryBase ... on ${job} { intro hours location salaryMin salaryMax salaryHours }
  }
}
${ENTRY_BASE}`,
    JobBySlug: `query JobBySlug($slug: [String], $site: [String]) {
  entry(section: "${CHANNELS.jobs.section}", slug: $slug, site: $site) {
    ...EntryBase
    ... on ${job} {
      intro hours location employmentType salaryMin salaryMax salaryHours validThrough
      whatYouDo whatYouBring whatWeOffer howToApply
    }
  }
}
${ENTRY_BASE}`,
  }
}

/**
 * "Meer nieuws" under an article: its neighbours by post date in the news
 * section, two newer (`prev`, as a channel lists newest first) and two older
 * (`next`), of which the page shows the nearest HOME_LATEST_ARTICLES. Not the
 * latest articles: then every article page would show, and be purged with,
 * any change to them or any new article. This way an article is shown on at
 * most four other article pages, and a new one changes only its neighbours'.
 */
function articleNeighbours(fields: string): string {
  const around = `section: "${CHANNELS.topical.section}", site: $site, orderBy: "postDate DESC"`
  return `newer: prev(${around}) { ${fields} newer: prev(${around}) { ${fields} } }
    older: next(${around}) { ${fields} older: next(${around}) { ${fields} } }`
}

function articleDocuments(types: EntryTypes, features: SchemaFeatures): Pick<Operations, 'ArticleList' | 'LatestArticles' | 'ArticleBySlug'> {
  const article = types.channel('topical')
  const author = features.author ? ' author { fullName }' : ''
  const articleSummary = `...EntryBase${author} ... on ${article} { intro image { ...Image } }`
  // The home page's news cards show title, date and intro: no image or author to fetch, store and ship to every visitor.
  const latestArticle = `...EntryBase ... on ${article} { intro }`
  return {
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
    ${latestArticle}
  }
}
${ENTRY_BASE}`,
    ArticleBySlug: `query ArticleBySlug($slug: [String], $site: [String]) {
  entry(section: "${CHANNELS.topical.section}", slug: $slug, site: $site) {
    ...EntryBase${author} ... on ${article} { intro text image { ...Image } }
    ${articleNeighbours(latestArticle)}
  }
}
${ENTRY_BASE}
${IMAGE}`,
  }
}

function establishmentListDocument(types: EntryTypes): string {
  return `query EstablishmentList($site: [String]) {
  entries(section: "${CHANNELS.establishments.section}", site: $site, orderBy: "title ASC") {
    ...EntryBase
    ... on ${types.channel('establishments')} {
      intro street postalCode city phone email mapUrl latitude longitude
      openingHours { day hours }
    }
  }
}
${ENTRY_BASE}`
}

/** One group of the sitemap index (gateway/payload/sitemap.ts): the singles' sections, or one channel. */
const SITEMAP_DOCUMENT = `query Sitemap($site: [String], $section: [String]) {
  entries(section: $section, site: $site) {
    id sectionHandle slug dateUpdated
  }
}`

/**
 * The entries next to a post date in a section, the nearest newer and older
 * (two of each: one may be the saved entry itself): a purge asks for them
 * when an entry is new or moves in its section's order, since the pages of
 * those entries, and the pages that show them, now show it too
 * (gateway/cache/save-purge.ts). Never cached.
 */
const ENTRIES_AROUND_DOCUMENT = `query EntriesAround($section: [String], $site: [String], $newer: [String], $older: [String]) {
  newer: entries(section: $section, site: $site, postDate: $newer, orderBy: "postDate ASC", limit: 2) { id }
  older: entries(section: $section, site: $site, postDate: $older, orderBy: "postDate DESC", limit: 2) { id }
}`

function redirectsDocument(types: EntryTypes): string {
  return `query Redirects($site: [String]) {
  entries(section: "${CHANNELS.redirects.section}", site: $site, orderBy: "id ASC") {
    id ... on ${types.channel('redirects')} { redirectSrcUrl redirectDestUrl redirectHttpCode }
  }
}`
}

function notFoundDocument(types: EntryTypes): string {
  return `query NotFound($site: [String]) {
  entry(section: "${CHANNELS.notFound.section}", site: $site) {
    title ... on ${types.channel('notFound')} { text }
  }
}`
}

export function createOperations(product: string, version: CraftVersion = DEFAULT_CRAFT_VERSION, features: SchemaFeatures = { author: true }): Operations {
  const types = entryTypesOf(product, version)
  return {
    ...singlePageDocuments(product, types),
    SiteSettings: siteSettingsDocument(),
    HomePage: homePageDocument(types),
    ...insuranceDocuments(types),
    ...serviceDocuments(types),
    ...jobDocuments(types),
    ...articleDocuments(types, features),
    EstablishmentList: establishmentListDocument(types),
    Sitemap: SITEMAP_DOCUMENT,
    EntriesAround: ENTRIES_AROUND_DOCUMENT,
    Redirects: redirectsDocument(types),
    NotFound: notFoundDocument(types),
  }
}

/**
 * Operations whose answers are never stored in any cache: none now. The
 * notFound entry is one cached answer for every 404, tagged with its section
 * like any other (a 404 used to cost a CMS call every time).
 */
export const NEVER_CACHED_OPERATIONS: ReadonlySet<OperationName> = new Set<OperationName>(['EntriesAround'])

/** Fields that Craft delivers as HTML: sanitised by the gateway before anything caches or renders them. */
export const RICH_TEXT_FIELDS: ReadonlySet<string> = new Set(['text', 'whatYouDo', 'whatYouBring', 'whatWeOffer', 'howToApply', 'coverage', 'exclusions'])
