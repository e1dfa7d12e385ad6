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
}

export interface Image {
  id: string
  url: string
  width: number | null
  height: number | null
  alt: string | null
  title: string | null
  /** Responsive transforms as a srcset value; null when the CMS has none. */
  srcset: string | null
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
  footerText: string | null
  mainNavigation: Link[]
  footerNavigation: Link[]
  openingHours: OpeningHours[]
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
}

export interface Job extends JobSummary {
  employmentType: string | null
  validThrough: string | null
  whatYouDo: string | null
  whatYouBring: string | null
  whatWeOffer: string | null
  howToApply: string | null
}

export interface ArticleSummary extends EntryBase {
  intro: string | null
  author: string | null
  image: Image[]
}

export interface Article extends ArticleSummary {
  text: string | null
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
  openingHours: OpeningHours[]
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
