import { invalidRouteMessage, notFoundMessage } from '../../shared/constants.ts'
import { showsPreviewEntry } from '../../shared/preview-entries.ts'
import type { NotFoundEntry } from '../../shared/content-types.ts'
import type { PagePayload, PayloadPart } from '../../shared/payload.ts'
import { type LoaderSpec, PAGE_QUERY_PARAM, type RouteDefinition, type RouteTable, type ScreenName, pagedLoader, parsePageParam } from '../../shared/routes.ts'
import { mergeTags } from '../cache/cache-tags.ts'
import type { CacheLookup, CacheStatus } from '../cache/query-cache.ts'
import type { UpstreamAnswer } from '../craft/client.ts'
import type { ContentService, RunContext } from '../craft/content-service.ts'
import { UpstreamBadResponseError } from '../errors.ts'
import { NOT_FOUND_RENDER_URL, SUGGESTION_PLACEHOLDER } from '../pages/not-found-page.ts'
import { NearestPages } from './nearest-page.ts'
import { type SitemapGroup, SitemapBuilder, sitemapVariables } from './sitemap.ts'

export interface PayloadRequest {
  /** Decoded path without query string. */
  path: string
  /** Path with its query string, for the 404 message. */
  fullPath: string
  /** Value of `?pagina`, when given. */
  pageParam: string | undefined
  part: PayloadPart
  context: RunContext
}

/**
 * What a payload is built from for a page and its query (without `part`): the
 * same for the payload route and a render request, so both give one payload.
 */
export function payloadInput(path: string, params: URLSearchParams, context: RunContext): Omit<PayloadRequest, 'part'> {
  const query = params.toString()
  return { path, fullPath: `${path}${query ? `?${query}` : ''}`, pageParam: params.get(PAGE_QUERY_PARAM) ?? undefined, context }
}

export interface BuiltPayload {
  payload: PagePayload
  cacheStatus: CacheStatus
  /** Sections and `entry:<id>` of the answers the payload was built from; empty for errors (a 404's are its layout's and the notFound entry's). */
  tags: readonly string[]
  /**
   * Whether some entry anywhere in the payload is a draft, a revision or not
   * live (shared/preview-entries.ts): what a preview token changes that the gateway can see. Looked
   * for only in previews; false otherwise and for failures.
   */
  showsPreview: boolean
  /**
   * The pages' cache keys and answers the payload was built from, in order,
   * when every one came from there: the same answers under the same keys
   * build the same payload (RenderBodyMemo reuses a page's render on that).
   */
  sources?: { keys: string[]; answers: UpstreamAnswer[] }
}

const STATUS_RANK: Record<CacheStatus, number> = { HIT: 0, STALE: 1, MISS: 2, BYPASS: 3 }

/** The X-Cache of a response built from several lookups: its least cached part. */
export function combineCacheStatus(statuses: readonly CacheStatus[]): CacheStatus {
  return statuses.reduce<CacheStatus>((worst, status) => (STATUS_RANK[status] > STATUS_RANK[worst] ? status : worst), 'HIT')
}

interface ErrorWithStatus {
  statusCode?: number
  message?: string
}

/** Assembles the payload of a path from its route's loaders, through the content service's cache. */
/** The sitemap group of the section whose entries a slug route shows, by its screen: the group's answer lists their slugs. */
const SLUG_GROUPS: Partial<Record<ScreenName, SitemapGroup>> = {
  job: 'jobs',
  article: 'topical',
  service: 'services',
  insurance: 'insurances',
}

export class PayloadBuilder {
  /** The slugs in a cached sitemap group's answer, read once per answer. */
  private readonly listedSlugs = new WeakMap<object, Set<string>>()
  /** The "Bedoelde u …?" of a 404: the nearest address of the sitemap (only its addresses are read, never split). */
  readonly nearest: NearestPages

  constructor(
    readonly routes: RouteTable,
    private readonly content: ContentService,
    private readonly siteUrl: string,
  ) {
    this.nearest = new NearestPages(routes, content, new SitemapBuilder(routes, siteUrl, Number.MAX_SAFE_INTEGER))
  }

  /**
   * The 404 message of a page known to be missing without asking the CMS: a
   * path no route takes, a slug or page number that is not one, a page
   * number past the last page of the cached list, a slug whose cached answer
   * has no entry (answers still fresh: a stale one is asked again, as a
   * render would). Undefined when the page may exist.
   */
  knownMissing(request: Omit<PayloadRequest, 'part'>): string | undefined {
    const match = this.routes.match(request.path)
    if (match.kind === 'unknown') return notFoundMessage(request.fullPath)
    if (match.kind === 'invalid') return invalidRouteMessage(request.path)
    const { route, params } = match
    const page = route.paginated ? parsePageParam(request.pageParam) : 1
    if (page === undefined) return invalidRouteMessage(request.path)
    if (page > 1 && page > this.lastPageCached(route, request.context)) return notFoundMessage(request.fullPath)
    if (params.slug !== undefined && route.fixedSlug === undefined) {
      const entryLoader = route.loaders.find((loader) => loader.requiresEntry)
      const cached = entryLoader && this.content.freshNamed(entryLoader.operation, entryLoader.variables({ site: this.routes.product, params, page }), request.context)
      if (cached?.body.data && cached.body.errors === undefined && cached.body.data.entry === null) return notFoundMessage(request.fullPath)
      if (cached === undefined && this.unlisted(route.screen, params.slug, request.context)) return notFoundMessage(request.fullPath)
    }
    return undefined
  }

  /**
   * Whether the live sitemap, fresh in the cache, lists no entry of the
   * route's section with this slug: then there is no live page to ask the
   * CMS for. A publish purges the sitemap with its section, so a new entry
   * is never refused for long. Without a fresh sitemap the slug is asked
   * for, and the sitemap is asked for beside it (one call per key and
   * TTL, shared), so that the next unknown slugs cost nothing.
   */
  private unlisted(screen: ScreenName, slug: string, context: RunContext): boolean {
    const group = SLUG_GROUPS[screen]
    if (group === undefined || context.preview) return false
    const variables = sitemapVariables(group, this.routes.product)
    const answer = this.content.freshNamed('Sitemap', variables, context)
    if (!answer) {
      this.content.runNamed('Sitemap', variables, context).catch(() => undefined)
      return false
    }
    const entries = answer.body.errors === undefined ? answer.body.data?.entries : undefined
    if (!Array.isArray(entries)) return false
    let slugs = this.listedSlugs.get(answer.body)
    if (!slugs) {
      slugs = new Set()
      for (const entry of entries as { slug?: unknown }[]) if (typeof entry.slug === 'string') slugs.add(entry.slug)
      this.listedSlugs.set(answer.body, slugs)
    }
    return !slugs.has(slug)
  }

  /** The last page of a paginated route's list by the count in its cached first page; Infinity while none is cached. */
  private lastPageCached(route: RouteDefinition, context: RunContext): number {
    const loader = pagedLoader(route)
    if (loader?.perPage === undefined) return Number.POSITIVE_INFINITY
    const first = this.content.freshNamed(loader.operation, loader.variables({ site: this.routes.product, params: {}, page: 1 }), context)
    const count = first?.body.data?.entryCount
    return typeof count === 'number' ? Math.max(1, Math.ceil(count / loader.perPage)) : Number.POSITIVE_INFINITY
  }

  async build(request: PayloadRequest): Promise<BuiltPayload> {
    const missing = this.knownMissing(request)
    if (missing !== undefined) return this.notFound(request, missing)
    const match = this.routes.match(request.path)
    if (match.kind !== 'route') return this.notFound(request, notFoundMessage(request.fullPath))
    const { route, params } = match
    const page = (route.paginated ? parsePageParam(request.pageParam) : 1) ?? 1

    const loaders = route.loaders.filter((loader) =>
      request.part === 'all' ? true : request.part === 'deferred' ? loader.deferred === true : loader.deferred !== true,
    )
    const base = this.basePayload(request, page)
    base.routeId = route.id
    base.screen = route.screen
    base.canonicalPath = this.routes.canonicalPath(route, params)
    base.pending = request.part === 'primary' ? route.loaders.filter((l) => l.deferred).map((l) => l.key) : []

    let results: { loader: LoaderSpec; lookup: CacheLookup }[]
    try {
      results = await Promise.all(
        loaders.map(async (loader) => ({
          loader,
          lookup: await this.content.runNamed(loader.operation, loader.variables({ site: this.routes.product, params, page }), request.context),
        })),
      )
    } catch (error) {
      return this.failure(request, base, error as ErrorWithStatus)
    }

    for (const { loader, lookup } of results) {
      const { body } = lookup.answer
      if (!body.data || (body.errors && body.errors.length > 0)) {
        return this.failure(request, base, new UpstreamBadResponseError())
      }
      if (loader.requiresEntry && body.data.entry == null) {
        return this.notFound(request, notFoundMessage(request.fullPath))
      }
      base.data[loader.key] = body.data
    }
    const paged = pagedLoader(route)
    const listed = paged && (base.data[paged.key] as { entries?: unknown[] } | undefined)?.entries
    if (page > 1 && listed?.length === 0) return this.notFound(request, notFoundMessage(request.fullPath))
    const built: BuiltPayload = {
      payload: base,
      cacheStatus: combineCacheStatus(results.map((r) => r.lookup.status)),
      tags: mergeTags(results.map((r) => r.lookup.tags)),
      showsPreview: request.context.preview && showsPreviewEntry(base.data),
    }
    const keys = results.map((r) => r.lookup.key)
    if (keys.every((key) => key !== undefined)) built.sources = { keys: keys as string[], answers: results.map((r) => r.lookup.answer) }
    return built
  }

  private basePayload(request: PayloadRequest, page: number): PagePayload {
    return {
      path: request.path,
      fullPath: request.fullPath,
      routeId: null,
      screen: 'error',
      status: 200,
      data: {},
      pending: [],
      page,
      preview: request.context.preview,
      siteUrl: this.siteUrl,
      canonicalPath: null,
    }
  }

  /**
   * A 404 with the notFound entry and the site's layout data, both from the
   * pages' cache: after the first, a 404 costs no CMS call. Its tags are the
   * two answers', so a purge of either section drops a stored 404 page.
   */
  private async notFound(request: PayloadRequest, message: string): Promise<BuiltPayload> {
    const payload = this.basePayload(request, 1)
    payload.status = 404
    payload.error = { statusCode: 404, message, fatal: false }
    // The stored 404 page is rendered with a stand-in, where each visitor's own suggestion goes (pages/not-found-page.ts).
    payload.suggestion = request.path === NOT_FOUND_RENDER_URL.path ? SUGGESTION_PLACEHOLDER : this.nearest.suggest(request.path, request.context)
    const [site, notFound] = await Promise.allSettled([
      this.content.runNamed('SiteSettings', { site: this.routes.product }, request.context),
      this.content.runNamed('NotFound', { site: this.routes.product }, request.context),
    ])
    if (site.status === 'fulfilled' && site.value.answer.body.data) payload.data.site = site.value.answer.body.data
    payload.notFound =
      notFound.status === 'fulfilled' ? ((notFound.value.answer.body.data?.entry as NotFoundEntry | null | undefined) ?? null) : null
    // Without both answers the page is not what a stored 404 page should be: BYPASS, and no tags to store it by.
    const lookups = [site, notFound].flatMap((settled) => (settled.status === 'fulfilled' && settled.value.answer.body.data ? [settled.value] : []))
    const whole = lookups.length === 2
    return {
      payload,
      cacheStatus: whole ? combineCacheStatus(lookups.map((lookup) => lookup.status)) : 'BYPASS',
      tags: whole ? mergeTags(lookups.map((lookup) => lookup.tags)) : [],
      showsPreview: request.context.preview && showsPreviewEntry([payload.data, payload.notFound]),
    }
  }

  /**
   * The upstream failed: an error payload with its status, and the layout data
   * when the cache still has it. Only the cache: asking a failing CMS again
   * would add a second upstream timeout to the page.
   */
  private failure(request: PayloadRequest, payload: PagePayload, error: ErrorWithStatus): BuiltPayload {
    const statusCode = typeof error.statusCode === 'number' && error.statusCode >= 500 ? error.statusCode : 500
    payload.status = statusCode
    payload.screen = 'error'
    payload.data = {}
    payload.pending = []
    payload.error = { statusCode, message: error.message ?? 'Onbekende fout', fatal: false }
    const site = this.content.cachedNamed('SiteSettings', { site: this.routes.product }, request.context)
    if (site?.body.data) payload.data.site = site.body.data
    return { payload, cacheStatus: 'BYPASS', tags: [], showsPreview: false }
  }
}
