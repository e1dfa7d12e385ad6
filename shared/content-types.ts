import type { ModernImageUrls } from './image-sources.ts'

/** Shapes of what the allowlisted operations return (see operations.ts). */

export interface EntryBase {
  id: string
  title: string
  slug: string
  uri: string | null
  postDate: string | null
  dateUpdated: string | null
  sectionHandle: string
  typeHandle: string
  /** Craft's element status: `live` for published content; a preview may show `disabled` or `pending` entries. */
  status: string | null
  /** A draft shown in a preview (a provisional draft, auto-saved changes, too). */
  isDraft: boolean | null
  /** Set when a preview shows a revision (an older version) of the entry. */
  revisionId: number | null
}

/** Craft's own user, e.g. an entry's `author`. */
export interface User {
  fullName: string | null
}

export interface Image extends ModernImageUrls {
  id: string
  url: string
  width: number | null
  height: number | null
  alt: string | null
  title: string | null
  /** Responsive transforms as a srcset value; null when the CMS has none. */
  srcset: string | null
  /** A raster transform of the share size (SHARE_IMAGE), for og:image and JSON-LD. */
  shareUrl: string | null
}

export interface Link {
  label: string
  url: string
}

export interface OpeningHours {
  day: string
  hours: string
}

export interface SiteSettings {
  companyName: string
  tagline: string | null
  phone: string
  damagePhone: string
  email: string
  street: string
  postalCode: string
  city: string
  afmNumber: string
  kifidNumber: string
  kvkNumber: string
  /** Where a visitor checks each number: the office's entry in the AFM register, Kifid's list of affiliated firms and the KvK. */
  afmRegisterUrl: string | null
  kifidRegisterUrl: string | null
  kvkRegisterUrl: string | null
  footerText: string | null
  /** Table fields: Craft gives null, not [], when no row was saved. */
  mainNavigation: Link[] | null
  footerNavigation: Link[] | null
  openingHours: OpeningHours[] | null
}

export interface SinglePage extends EntryBase {
  intro: string | null
  text: string | null
  seoDescription: string | null
}

export interface InsuranceSummary extends EntryBase {
  category: 'particulier' | 'zakelijk' | null
  intro: string | null
}

/** An insurer the office places insurances with (the `insurers` channel). */
export interface Insurer extends EntryBase {
  website: string | null
}

export interface Insurance extends InsuranceSummary {
  /** "Voor wie?" and anything else the page says besides the fields below. */
  text: string | null
  /** What is covered (rich text, shown under "Wat is gedekt?"). */
  coverage: string | null
  /** What is not covered (rich text, "Wat is niet gedekt?"). */
  exclusions: string | null
  /** The eigen risico, in a sentence. */
  deductible: string | null
  /** The insurers this insurance is placed with (an entries field). */
  insurers: Insurer[]
  /** Where questions about this insurance go; the site's address when empty. */
  adviceEmail: string | null
}

export interface ServiceSummary extends EntryBase {
  intro: string | null
}

export interface Service extends ServiceSummary {
  text: string | null
}

export interface HomePage extends SinglePage {
  ctaHeading: string | null
  ctaText: string | null
  ctaLinkLabel: string | null
  ctaLinkUrl: string | null
  highlightedInsurances: InsuranceSummary[]
  highlightedServices: ServiceSummary[]
}

export interface JobSummary extends EntryBase {
  intro: string | null
  hours: string | null
  location: string | null
  salaryMin: number | null
  salaryMax: number | null
  /** The hours per week the salary range is for. */
  salaryHours: number | null
}

export interface Job extends JobSummary {
  employmentType: string | null
  validThrough: string | null
  whatYouDo: string | null
  whatYouBring: string | null
  whatWeOffer: string | null
  howToApply: string | null
}

/** An article as the home page's latest news shows it (LatestArticles): a card without image or author. */
export interface LatestArticle extends EntryBase {
  intro: string | null
}

export interface ArticleSummary extends LatestArticle {
  /** Craft's native author (a user); null when the entry has none or the schema may not read users. */
  author: User | null
  image: Image[]
}

/** An article's neighbour by post date, with the next one further in the same direction (shared/operations.ts articleNeighbours). */
export interface NewerArticle extends LatestArticle {
  newer?: LatestArticle | null
}

export interface OlderArticle extends LatestArticle {
  older?: LatestArticle | null
}

export interface Article extends ArticleSummary {
  text: string | null
  /** Absent in data made before articles had neighbours (a stored page's payload). */
  newer?: NewerArticle | null
  older?: OlderArticle | null
}

export interface Establishment extends EntryBase {
  intro: string | null
  street: string
  postalCode: string
  city: string
  phone: string
  email: string
  mapUrl: string | null
  latitude: number | null
  longitude: number | null
  openingHours: OpeningHours[] | null
}

export interface NotFoundEntry {
  title: string
  text: string | null
}

/** GraphQL `data` of each operation, by the loader keys of routes.ts. */
export interface EntryData<T> {
  entry: T | null
}
export interface EntriesData<T> {
  entries: T[]
  entryCount?: number
}
export interface SiteSettingsData {
  globalSet: SiteSettings | null
}
