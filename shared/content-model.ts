import { SITE_SETTINGS_HANDLE } from './constants.ts'
import { CHANNELS, SINGLE_SECTIONS, withProduct } from './sections.ts'

/** Field handles Craft keeps for its own entry fields. */
export const RESERVED_FIELD_HANDLES: ReadonlySet<string> = new Set(['author', 'authors', 'section', 'type'])

/**
 * The Craft content model the site expects: sections with their entry types
 * and custom fields, and one global set. The embedded CMS serves it, the
 * conformance test builds Craft's schemas from it, and docs/craft.md's table of
 * what a real Craft must have is made from it. No custom field is named after
 * a native one (`author`, `section`, `type`): Craft refuses those.
 */
export type FieldKind =
  | { kind: 'plainText' }
  | { kind: 'richText' }
  | { kind: 'number' }
  | { kind: 'date' }
  | { kind: 'dropdown'; options: readonly string[] }
  /** `sources`: the sections the field may relate to (Craft's "Sources" setting); any section when absent. */
  | { kind: 'entries'; sources?: readonly string[] }
  | { kind: 'assets' }
  | { kind: 'table'; columns: readonly string[] }

export interface FieldDefinition {
  handle: string
  field: FieldKind
}

export interface EntryTypeDefinition {
  section: string
  type: string
  fields: readonly FieldDefinition[]
}

const plain = (handle: string): FieldDefinition => ({ handle, field: { kind: 'plainText' } })
const rich = (handle: string): FieldDefinition => ({ handle, field: { kind: 'richText' } })
const num = (handle: string): FieldDefinition => ({ handle, field: { kind: 'number' } })
const date = (handle: string): FieldDefinition => ({ handle, field: { kind: 'date' } })
const related = (handle: string, sources?: readonly string[]): FieldDefinition => ({ handle, field: sources ? { kind: 'entries', sources } : { kind: 'entries' } })
const assets = (handle: string): FieldDefinition => ({ handle, field: { kind: 'assets' } })
const table = (handle: string, columns: readonly string[]): FieldDefinition => ({ handle, field: { kind: 'table', columns } })

/** Handle of the volume the site's images are in. */
export const ASSET_VOLUME = 'images'

const OPENING_HOURS = ['day', 'hours'] as const
const LINK = ['label', 'url'] as const
const SINGLE_FIELDS = [plain('intro'), rich('text'), plain('seoDescription')]

export interface ContentModel {
  entryTypes: EntryTypeDefinition[]
  globalSet: { handle: string; fields: FieldDefinition[] }
  /** The asset volume of the site's images. */
  assetVolume: string
}

/** The single sections of a product's site, each with one entry type of its own name; its home has the call to action and highlights. */
function singleEntryTypes(product: string): EntryTypeDefinition[] {
  return SINGLE_SECTIONS.map((template): EntryTypeDefinition => {
    const section = withProduct(template, product)
    const fields =
      template === '{product}Home'
        ? [
            ...SINGLE_FIELDS,
            plain('ctaHeading'),
            plain('ctaText'),
            plain('ctaLinkLabel'),
            plain('ctaLinkUrl'),
            related('highlightedInsurances'),
            related('highlightedServices'),
          ]
        : SINGLE_FIELDS
    return { section, type: section, fields }
  })
}

const channel = (name: keyof typeof CHANNELS, fields: FieldDefinition[]): EntryTypeDefinition => ({
  section: CHANNELS[name].section,
  type: CHANNELS[name].type,
  fields,
})

/** The channels (the same for every product), each with its one entry type. */
function channelEntryTypes(): EntryTypeDefinition[] {
  return [
    channel('insurances', [
      { handle: 'category', field: { kind: 'dropdown', options: ['particulier', 'zakelijk'] } },
      plain('intro'),
      rich('text'),
      // What a visitor acts on, as fields of their own (issue 42): shown under their own headings.
      rich('coverage'),
      rich('exclusions'),
      plain('deductible'),
      related('insurers', [CHANNELS.insurers.section]),
      plain('adviceEmail'),
    ]),
    channel('insurers', [plain('website')]),
    channel('services', [plain('intro'), rich('text')]),
    channel('jobs', [
      plain('intro'),
      plain('hours'),
      plain('location'),
      plain('employmentType'),
      num('salaryMin'),
      num('salaryMax'),
      // The hours per week salaryMin and salaryMax are for: a part-time job's salary is stated for its own hours.
      num('salaryHours'),
      date('validThrough'),
      rich('whatYouDo'),
      rich('whatYouBring'),
      rich('whatWeOffer'),
      rich('howToApply'),
    ]),
    channel('topical', [plain('intro'), rich('text'), assets('image')]),
    channel('establishments', [
      plain('intro'),
      plain('street'),
      plain('postalCode'),
      plain('city'),
      plain('phone'),
      plain('email'),
      table('openingHours', OPENING_HOURS),
      plain('mapUrl'),
      num('latitude'),
      num('longitude'),
    ]),
    channel('notFound', [rich('text')]),
    channel('redirects', [plain('redirectSrcUrl'), plain('redirectDestUrl'), num('redirectHttpCode')]),
  ]
}

/** The site's settings: one global set. */
function siteSettings(): ContentModel['globalSet'] {
  return {
    handle: SITE_SETTINGS_HANDLE,
    fields: [
      plain('companyName'),
      plain('tagline'),
      plain('phone'),
      plain('damagePhone'),
      plain('email'),
      plain('street'),
      plain('postalCode'),
      plain('city'),
      plain('afmNumber'),
      plain('kifidNumber'),
      plain('kvkNumber'),
      // The numbers' entries in the public registers (the AFM's detail page has an id of its own, not the number): the footer links them.
      plain('afmRegisterUrl'),
      plain('kifidRegisterUrl'),
      plain('kvkRegisterUrl'),
      plain('footerText'),
      table('mainNavigation', LINK),
      table('footerNavigation', LINK),
      table('openingHours', OPENING_HOURS),
    ],
  }
}

export function createContentModel(product: string): ContentModel {
  return {
    entryTypes: [...singleEntryTypes(product), ...channelEntryTypes()],
    globalSet: siteSettings(),
    assetVolume: ASSET_VOLUME,
  }
}
