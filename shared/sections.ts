import { NOT_FOUND_SECTION, PRODUCT_PLACEHOLDER } from './constants.ts'

/**
 * Craft section handles the site reads. Singles carry the site handle as a
 * prefix (`{product}Home`); channels do not.
 */
export const SINGLE_SECTIONS = [
  '{product}Home',
  '{product}About',
  '{product}Contact',
  '{product}Content',
  '{product}Disclaimer',
  '{product}InsurancePolicyTerms',
  '{product}TermsAndConditions',
  '{product}PrivacyAndCookiePolicy',
  '{product}Insurances',
  '{product}JobsOverview',
  '{product}TopicalOverview',
  '{product}Establishments',
  '{product}PartOfLicent',
  '{product}Services',
  '{product}ServicesOverview',
  'aboutJobsOpenApplication',
] as const

export type SingleSectionTemplate = (typeof SINGLE_SECTIONS)[number]

export const CHANNELS = {
  insurances: { section: 'insurances', type: 'insurance' },
  /** The insurers the office places insurances with: no page of their own, named on the insurances. */
  insurers: { section: 'insurers', type: 'insurer' },
  services: { section: 'services', type: 'service' },
  jobs: { section: 'jobs', type: 'job' },
  topical: { section: 'topical', type: 'article' },
  establishments: { section: 'establishments', type: 'establishment' },
  notFound: { section: NOT_FOUND_SECTION, type: NOT_FOUND_SECTION },
  redirects: { section: 'redirects', type: 'redirect' },
} as const

/** Replaces every `{product}` in a handle, slug or path with the site handle. */
export function withProduct(template: string, product: string): string {
  return template.split(PRODUCT_PLACEHOLDER).join(product)
}

/** A site handle must be usable inside GraphQL type names and section handles. */
export const SITE_HANDLE_PATTERN = /^[a-z][a-zA-Z0-9]{0,39}$/
