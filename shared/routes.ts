import { ARTICLES_PER_PAGE, HOME_LATEST_ARTICLES, INSURANCES_PER_PAGE, JOBS_PER_PAGE, SERVICES_PER_PAGE, SLUG_PATTERN } from './constants.ts'
import { type OperationName, singlePageOperation } from './operations.ts'
import { withProduct } from './sections.ts'

/** Query parameter of the page number on paginated overviews. */
export const PAGE_QUERY_PARAM = 'pagina'
const PAGINATED_QUERY: readonly string[] = [PAGE_QUERY_PARAM]

/** The screens of the site: one React component each in the renderer. */
export type ScreenName =
  | 'home'
  | 'page'
  | 'contact'
  | 'insurances'
  | 'insurance'
  | 'jobs'
  | 'job'
  | 'topical'
  | 'article'
  | 'establishments'
  | 'services'
  | 'service'

export interface LoaderContext {
  site: string
  params: Readonly<Record<string, string>>
  /** 1-based page of a paginated overview. */
  page: number
}

/** One operation of a page's payload. */
export interface LoaderSpec {
  /** Name of the result in the payload's `data`. */
  key: string
  operation: OperationName
  variables: (ctx: LoaderContext) => Record<string, unknown>
  /** The page is a 404 when this loader's `entry` is null. */
  requiresEntry?: boolean
  /** Not needed for the first bytes: streamed into a Suspense boundary by the renderer. */
  deferred?: boolean
  /** The paginated list of a paginated route: this many entries a page, with `entryCount` beside them. */
  perPage?: number
}

export interface RouteDefinition {
  id: string
  screen: ScreenName
  /** Path of this route that search engines index. */
  canonical: string
  /** Craft section handle of the page's own content, `{product}` resolved. */
  handle?: string
  /** Exact paths, or `prefix/:slug`. */
  paths: readonly string[]
  /** Slugs fixed by the route, e.g. the two fixed job pages. */
  fixedSlug?: string
  paginated?: boolean
  /**
   * The query parameters the page depends on (`pagina` on a paginated
   * overview): the only ones in its cache keys and its render; any other
   * parameter is ignored.
   */
  query: readonly string[]
  loaders: readonly LoaderSpec[]
}

export type RouteMatch =
  | { kind: 'route'; route: RouteDefinition; params: Record<string, string>; path: string }
  | { kind: 'invalid'; path: string }
  | { kind: 'unknown'; path: string }

const siteSettings: LoaderSpec = {
  key: 'site',
  operation: 'SiteSettings',
  variables: ({ site }) => ({ site }),
}

/** A single's own document: the section is in the document, so only the site varies. */
const single = (template: string, key = 'page'): LoaderSpec => ({
  key,
  operation: singlePageOperation(template),
  variables: ({ site }) => ({ site }),
  requiresEntry: true,
})

const bySlug = (operation: OperationName): LoaderSpec => ({
  key: 'entry',
  operation,
  variables: ({ site, params }) => ({ slug: params.slug, site }),
  requiresEntry: true,
})

const list = (key: string, operation: OperationName): LoaderSpec => ({
  key,
  operation,
  variables: ({ site }) => ({ site }),
})

interface RouteTemplate {
  id: string
  screen: ScreenName
  handle?: string
  paths: readonly string[]
  /** The path search engines should index when the route has aliases; the first path otherwise. */
  canonical?: string
  fixedSlug?: string
  /** Split into pages by `?pagina=N`: the one query parameter such a route reads. */
  paginated?: boolean
  /** Given the route's section handle (`{product}` resolved) and its template. */
  loaders: (handle: string, template: string) => readonly LoaderSpec[]
}

/** A route whose page is a single (its own document), with the entries of any lists below it. */
const singleWithLists = (route: Omit<RouteTemplate, 'loaders'>, ...lists: LoaderSpec[]): RouteTemplate => ({
  ...route,
  loaders: (_handle, template) => [single(template), ...lists],
})

/** A single and nothing more: the generic content page. */
const singlePage = (id: string, handle: string, paths: readonly string[], canonical?: string): RouteTemplate =>
  singleWithLists({ id, screen: 'page', handle, paths, ...(canonical ? { canonical } : {}) })

/** One page of a list, `perPage` long: the list of a paginated route. */
const listPage = (key: string, operation: OperationName, perPage: number): LoaderSpec => ({
  key,
  operation,
  perPage,
  variables: ({ site, page }) => ({ site, limit: perPage, offset: (page - 1) * perPage }),
})

/** The paginated list of a route (its `perPage` loader), if it has one. */
export function pagedLoader(route: RouteDefinition): LoaderSpec | undefined {
  return route.paginated ? route.loaders.find((loader) => loader.perPage !== undefined) : undefined
}

const establishmentList = list('establishments', 'EstablishmentList')
const serviceList = listPage('services', 'ServiceList', SERVICES_PER_PAGE)
const articlePage = listPage('articles', 'ArticleList', ARTICLES_PER_PAGE)

/**
 * The latest articles: the home page's news block (deferred there), and
 * "Meer nieuws" at the end of an article, one more there so that as many
 * remain once the article itself is left out. Every article has the same
 * variables: one cached answer for all of them. (Not the home page's: with
 * that answer at hand the home page would no longer stream its news.)
 */
const latestArticles = (limit: number): LoaderSpec => ({
  key: 'latestArticles',
  operation: 'LatestArticles',
  variables: ({ site }) => ({ site, limit }),
})

const fixed = (id: string, screen: ScreenName, path: string, slug: string, operation: OperationName, ...lists: LoaderSpec[]): RouteTemplate => ({
  id,
  screen,
  paths: [path],
  fixedSlug: slug,
  loaders: () => [bySlug(operation), ...lists],
})

export const FIXED_SERVICE_PAGES = [
  'verzekeringskaarten',
  'schade-melden',
  'conflicterende-situatie',
  'doelgroepomschrijving',
  'fraudebestrijding',
  'betalen-en-betalingsproblemen',
  'compliment-tip-of-klacht',
  'polisvoorwaarden',
  'verschillenoverzichten-maatschappijen',
  'beloningsbeleid',
] as const

export const FIXED_JOB_PAGES = ['allround-schadebehandelaar', 'financieel-administratief-medewerker-verzekeringen'] as const
export const FIXED_ARTICLES = ['van-verlegen-starter-naar-professional-in-haar-vakgebied', 'ons-nieuwe-merk-{product}'] as const

/** The route table of the specification; `{product}` is the site handle. */
export const ROUTE_TEMPLATES: readonly RouteTemplate[] = [
  {
    id: 'home',
    screen: 'home',
    handle: '{product}Home',
    paths: ['/', '/__home__'],
    loaders: (handle) => [
      { key: 'page', operation: 'HomePage', variables: ({ site }) => ({ section: handle, site }), requiresEntry: true },
      { ...latestArticles(HOME_LATEST_ARTICLES), deferred: true },
    ],
  },
  singlePage('about', '{product}About', ['/about', '/over-ons'], '/over-ons'),
  singleWithLists({ id: 'contact', screen: 'contact', handle: '{product}Contact', paths: ['/contact'] }, establishmentList),
  singlePage('content', '{product}Content', ['/content']),
  singlePage('disclaimer', '{product}Disclaimer', ['/disclaimer']),
  singlePage('policyTerms', '{product}InsurancePolicyTerms', ['/polisvoorwaarden']),
  singlePage('termsAndConditions', '{product}TermsAndConditions', ['/algemene-voorwaarden']),
  singlePage('privacy', '{product}PrivacyAndCookiePolicy', ['/privacy']),
  singleWithLists(
    { id: 'insurances', screen: 'insurances', handle: '{product}Insurances', paths: ['/insurances', '/onze-verzekeringen'], canonical: '/onze-verzekeringen', paginated: true },
    listPage('insurances', 'InsuranceList', INSURANCES_PER_PAGE),
    list('insurers', 'InsurerList'),
  ),
  {
    id: 'insurance',
    screen: 'insurance',
    paths: ['/onze-verzekeringen/:slug', '/insurances/:slug'],
    canonical: '/onze-verzekeringen/:slug',
    loaders: () => [bySlug('InsuranceBySlug')],
  },
  singleWithLists(
    { id: 'jobs', screen: 'jobs', handle: '{product}JobsOverview', paths: ['/jobs', '/werken-bij'], canonical: '/werken-bij', paginated: true },
    listPage('jobs', 'JobList', JOBS_PER_PAGE),
  ),
  singlePage('openApplication', 'aboutJobsOpenApplication', ['/werken-bij/open-sollicitatie']),
  ...FIXED_JOB_PAGES.map((slug) => fixed(`job:${slug}`, 'job', `/werken-bij/${slug}`, slug, 'JobBySlug')),
  // Every job and article at its Dutch address too, which is the one to index; the specification's /jobs and /topical keep working.
  { id: 'job', screen: 'job', paths: ['/jobs/:slug', '/werken-bij/:slug'], canonical: '/werken-bij/:slug', loaders: () => [bySlug('JobBySlug')] },
  singleWithLists(
    { id: 'topical', screen: 'topical', handle: '{product}TopicalOverview', paths: ['/topical', '/actueel'], canonical: '/actueel', paginated: true },
    articlePage,
  ),
  // An article's "Meer nieuws" are its neighbours, in its own answer (shared/operations.ts articleNeighbours).
  ...FIXED_ARTICLES.map((slug) => fixed(`article:${slug}`, 'article', `/actueel/${slug}`, slug, 'ArticleBySlug')),
  {
    id: 'article',
    screen: 'article',
    paths: ['/topical/:slug', '/actueel/:slug'],
    canonical: '/actueel/:slug',
    loaders: () => [bySlug('ArticleBySlug')],
  },
  singleWithLists(
    { id: 'establishments', screen: 'establishments', handle: '{product}Establishments', paths: ['/establishments', '/kantoren'], canonical: '/kantoren' },
    establishmentList,
  ),
  singlePage('partOfLicent', '{product}PartOfLicent', ['/part-of-licent', '/onderdeel-van-licent'], '/onderdeel-van-licent'),
  // /services is the specification's English address of the same subject as /onze-dienstverlening: it keeps
  // working, but names the Dutch overview canonical and is not listed in the sitemap (one page per subject).
  singleWithLists({ id: 'services', screen: 'services', handle: '{product}Services', paths: ['/services'], canonical: '/onze-dienstverlening', paginated: true }, serviceList),
  // Every service at its Dutch address too (a new disclosure page needs no route of its own), which is the one to index.
  {
    id: 'service',
    screen: 'service',
    paths: ['/services/:slug', '/onze-dienstverlening/:slug'],
    canonical: '/onze-dienstverlening/:slug',
    loaders: () => [bySlug('ServiceBySlug')],
  },
  singleWithLists({ id: 'servicesOverview', screen: 'services', handle: '{product}ServicesOverview', paths: ['/onze-dienstverlening'], paginated: true }, serviceList),
  ...FIXED_SERVICE_PAGES.map((slug) =>
    fixed(`service:${slug}`, 'service', `/onze-dienstverlening/${slug}`, slug, 'ServiceBySlug'),
  ),
]

const NO_QUERY: readonly string[] = []

export interface RouteTable {
  readonly product: string
  readonly routes: readonly RouteDefinition[]
  match(path: string): RouteMatch
  /** Every path that needs no CMS lookup to exist (for tests). */
  staticPaths(): string[]
  /** The path to index for a matched route: one of each alias pair; a fixed page over its slug route. */
  canonicalPath(route: RouteDefinition, params: Record<string, string>): string
  /** The indexable paths that need no CMS lookup (for the sitemap). */
  canonicalStaticPaths(): string[]
  /** The query parameters the page of a path reads (none for a path no route takes). */
  queryOf(path: string): readonly string[]
  /**
   * Whether a path is the one to index for its route (what the sitemap lists
   * for a live entry): an alias, a fixed page by its slug route or a path no
   * route takes is not.
   */
  isCanonical(path: string): boolean
}

/**
 * Compiles the route table for one site handle: exact paths go into a map,
 * slug routes into a prefix map, so matching is two lookups.
 */
export function createRouteTable(product: string): RouteTable {
  const exact = new Map<string, { route: RouteDefinition; params: Record<string, string> }>()
  const bySlugPrefix = new Map<string, RouteDefinition>()
  const routes: RouteDefinition[] = []
  for (const template of ROUTE_TEMPLATES) {
    const handle = template.handle === undefined ? undefined : withProduct(template.handle, product)
    const fixedSlug = template.fixedSlug === undefined ? undefined : withProduct(template.fixedSlug, product)
    const paths = template.paths.map((path) => withProduct(path, product))
    const route: RouteDefinition = {
      id: withProduct(template.id, product),
      screen: template.screen,
      canonical: template.canonical ?? (paths[0] as string),
      paths,
      query: template.paginated ? PAGINATED_QUERY : NO_QUERY,
      loaders: [siteSettings, ...template.loaders(handle ?? '', template.handle ?? '')],
      ...(handle === undefined ? {} : { handle }),
      ...(fixedSlug === undefined ? {} : { fixedSlug }),
      ...(template.paginated ? { paginated: true } : {}),
    }
    routes.push(route)
    for (const path of route.paths) {
      if (path.endsWith('/:slug')) bySlugPrefix.set(path.slice(0, -':slug'.length), route)
      else exact.set(path, { route, params: fixedSlug === undefined ? {} : { slug: fixedSlug } })
    }
  }

  return {
    product,
    routes,
    match(path) {
      const hit = exact.get(path)
      if (hit) return { kind: 'route', route: hit.route, params: hit.params, path }
      const cut = path.lastIndexOf('/')
      const route = cut > 0 ? bySlugPrefix.get(path.slice(0, cut + 1)) : undefined
      if (!route) return { kind: 'unknown', path }
      const slug = path.slice(cut + 1)
      if (!SLUG_PATTERN.test(slug)) return { kind: 'invalid', path }
      return { kind: 'route', route, params: { slug }, path }
    },
    staticPaths: () => [...exact.keys()],
    canonicalPath(route, params) {
      const slug = params.slug
      if (slug === undefined || route.fixedSlug !== undefined) return route.canonical
      const fixed = routes.find((other) => other.fixedSlug === slug && other.screen === route.screen)
      return fixed ? fixed.canonical : route.canonical.replace(':slug', slug)
    },
    canonicalStaticPaths: () => [...new Set(routes.filter((route) => !route.canonical.includes(':')).map((route) => route.canonical))],
    queryOf(path) {
      const found = this.match(path)
      return found.kind === 'route' ? found.route.query : NO_QUERY
    },
    isCanonical(path) {
      const found = this.match(path)
      return found.kind === 'route' && this.canonicalPath(found.route, found.params) === path
    },
  }
}

/**
 * Parses `?pagina=N`: undefined when it is not a page number. No ceiling
 * hides content: nine digits are a billion pages, past any real list (a
 * number past the last page is a 404 as any other).
 */
export function parsePageParam(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return 1
  if (!/^[1-9][0-9]{0,8}$/.test(value)) return undefined
  return Number(value)
}
