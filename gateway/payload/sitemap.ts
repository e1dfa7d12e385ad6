import { type RouteTable } from '../../shared/routes.ts'
import { CHANNELS, SINGLE_SECTIONS, withProduct } from '../../shared/sections.ts'

/**
 * The sitemap as SEO plugins make it (SEOmatic, Yoast): /sitemap.xml is an
 * index with one child per group (the singles' pages, then each channel),
 * each group split into children of at most SITEMAP_MAX_URLS addresses
 * (`/sitemap-topical-2.xml`). A group is one cached `Sitemap` answer of its
 * own sections, so a purge of a section drops its group only; its children
 * are built once per answer, in one pass over its entries.
 */
export const SITEMAP_GROUPS = ['pages', 'insurances', 'jobs', 'topical', 'services'] as const
export type SitemapGroup = (typeof SITEMAP_GROUPS)[number]

/** The address of a child sitemap: `/sitemap-<group>-<n>.xml`, n from 1. */
export const sitemapChildPath = (group: SitemapGroup, n: number): string => `/sitemap-${group}-${n}.xml`

/** The group and number of a child's name (`topical-2`); undefined for any other name. */
export function parseSitemapChild(name: string): { group: SitemapGroup; n: number } | undefined {
  const match = /^([a-z]+)-([1-9][0-9]{0,5})$/.exec(name)
  const group = SITEMAP_GROUPS.find((known) => known === match?.[1])
  return group && match ? { group, n: Number(match[2]) } : undefined
}

/** The variables of a group's `Sitemap` query: the same wherever it is asked (the slug check of build-payload.ts too), so one cached answer serves both. */
export function sitemapVariables(group: SitemapGroup, site: string): { site: string; section: string[] } {
  const section = group === 'pages' ? SINGLE_SECTIONS.map((template) => withProduct(template, site)) : [CHANNELS[group].section]
  return { site, section }
}

export interface SitemapEntry {
  sectionHandle: string
  slug: string
  dateUpdated: string | null
}

/** One group's children: each one's XML and its newest lastmod. */
export interface BuiltGroup {
  children: { xml: string; lastmod: string | null }[]
}

const xmlEscape = (text: string): string =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c)

const isoDate = (date: string | null | undefined): string | null => {
  if (!date) return null
  const time = Date.parse(date)
  return Number.isNaN(time) ? null : new Date(time).toISOString()
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
const URLSET_OPEN = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'

export class SitemapBuilder {
  /** Built children by answer: a cached answer is built once, until a purge or refresh replaces it. */
  private readonly built = new WeakMap<object, BuiltGroup>()
  private fallback: BuiltGroup | undefined
  /** A single's section handle -> its canonical path. */
  private readonly singles = new Map<string, string>()
  /** A channel's section -> its slug route's canonical (`/actueel/:slug`) and the fixed pages' canonical by slug. */
  private readonly channels = new Map<string, { template: string; fixed: Map<string, string> }>()

  constructor(
    private readonly routes: RouteTable,
    private readonly siteUrl: string,
    private readonly maxUrls: number,
  ) {
    const screens: Record<string, string> = {
      [CHANNELS.insurances.section]: 'insurance',
      [CHANNELS.jobs.section]: 'job',
      [CHANNELS.topical.section]: 'article',
      [CHANNELS.services.section]: 'service',
    }
    for (const route of routes.routes) if (route.handle !== undefined && !this.singles.has(route.handle)) this.singles.set(route.handle, route.canonical)
    for (const [section, screen] of Object.entries(screens)) {
      const slugRoute = routes.routes.find((route) => route.screen === screen && route.canonical.endsWith('/:slug'))
      if (!slugRoute) continue
      const fixed = new Map(routes.routes.filter((route) => route.screen === screen && route.fixedSlug !== undefined).map((route) => [route.fixedSlug as string, route.canonical]))
      this.channels.set(section, { template: slugRoute.canonical, fixed })
    }
  }

  /** The indexable path of a CMS entry: its single's route, or its channel's slug route (a fixed page's own address). */
  pathOf(entry: SitemapEntry): string | undefined {
    const single = this.singles.get(entry.sectionHandle)
    if (single !== undefined) return single
    const channel = this.channels.get(entry.sectionHandle)
    if (!channel || typeof entry.slug !== 'string') return undefined
    return channel.fixed.get(entry.slug) ?? channel.template.replace(':slug', entry.slug)
  }

  /**
   * A group's children from its answer's entries (undefined when the CMS
   * answered without data: then the pages group is the route table's
   * canonical addresses, so the sitemap is never empty, and a channel has none).
   */
  group(group: SitemapGroup, answer: object | undefined, entries: readonly SitemapEntry[] | undefined): BuiltGroup {
    if (!entries || !answer) {
      if (group !== 'pages') return { children: [] }
      this.fallback ??= this.split(this.routes.canonicalStaticPaths().map((path) => [path, null]))
      return this.fallback
    }
    const known = this.built.get(answer)
    if (known) return known
    // Only addresses a live entry stands behind, each with its entry's date; the pages in the route table's order.
    const dated = new Map<string, string | null>()
    for (const entry of entries) {
      const path = this.pathOf(entry)
      if (path !== undefined) dated.set(path, isoDate(entry.dateUpdated))
    }
    let ordered: [string, string | null][] = [...dated]
    if (group === 'pages') {
      const first = this.routes.canonicalStaticPaths().filter((path) => dated.has(path))
      const seen = new Set(first)
      ordered = [...first.map((path): [string, string | null] => [path, dated.get(path) ?? null]), ...ordered.filter(([path]) => !seen.has(path))]
    }
    const built = this.split(ordered)
    this.built.set(answer, built)
    return built
  }

  private split(urls: readonly (readonly [string, string | null])[]): BuiltGroup {
    const children: BuiltGroup['children'] = []
    for (let start = 0; start < urls.length; start += this.maxUrls) {
      const part = urls.slice(start, start + this.maxUrls)
      let lastmod: string | null = null
      const lines = part.map(([path, date]) => {
        if (date !== null && (lastmod === null || date > lastmod)) lastmod = date
        return `  <url><loc>${xmlEscape(`${this.siteUrl}${path}`)}</loc>${date ? `<lastmod>${date}</lastmod>` : ''}</url>`
      })
      children.push({ xml: `${XML_HEAD}${URLSET_OPEN}${lines.join('\n')}\n</urlset>\n`, lastmod })
    }
    return { children }
  }

  /** The sitemap index: one `<sitemap>` per child of each group, with its newest lastmod. */
  index(groups: readonly { group: SitemapGroup; built: BuiltGroup }[]): string {
    const items = groups.flatMap(({ group, built }) =>
      built.children.map(
        (child, i) => `  <sitemap><loc>${xmlEscape(`${this.siteUrl}${sitemapChildPath(group, i + 1)}`)}</loc>${child.lastmod ? `<lastmod>${child.lastmod}</lastmod>` : ''}</sitemap>`,
      ),
    )
    return `${XML_HEAD}<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${items.join('\n')}\n</sitemapindex>\n`
  }
}
