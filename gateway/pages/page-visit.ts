import type { FastifyBaseLogger } from 'fastify'
import type { WorkCaller } from '../admission/admission.ts'
import { pageKeyOf } from '../../shared/page-address.ts'
import type { SitePath } from '../../shared/site-path.ts'
import type { FlightLead, FlightOutcome } from '../cache/render-flights.ts'
import type { PageLock } from '../cache/shared-tier.ts'
import type { ResolvedToken } from '../preview/tokens.ts'
import { type RenderResponse, discard } from '../renderers/renderer-pool.ts'
import { MissingPage, NOT_FOUND_PAGE_KEY, NOT_FOUND_RENDER_URL, type NotFoundFields } from './not-found-page.ts'

/** Who asks for a page: a visitor's request, or the gateway itself refreshing a stored page (pages/page-refresh.ts). */
export interface VisitOrigin extends WorkCaller {
  log: FastifyBaseLogger
  /** The address as it was asked for (a redirect never sends it back there). */
  address: string
  userAgent: string | undefined
  /** Live preview's mark (a proxy's or a headless front end's header): the renderer leaves the bar out. */
  livePreview: boolean
}

export interface VisitOptions {
  url: SitePath
  context: ResolvedToken
  /** Answered from the page cache: no preview, and the page cache on. */
  useCache: boolean
  /** Stored once complete: from the cache, and not marked noindex for this request alone (a malformed token). */
  storable: boolean
  /** The page cache's generation now (cache/page-cache.ts `ticket`). */
  ticket: number
  /** The gateway's own render of a stored page gone stale (pages/page-refresh.ts): nobody is answered. */
  refresh?: boolean
}

/**
 * One page request as the stages of its answer see it. What changes as it
 * goes through them changes by these methods; the stages read the rest.
 */
export class PageVisit {
  #url: SitePath
  #context: ResolvedToken
  #cacheKey: string
  #notFound: NotFoundFields | undefined = undefined
  readonly useCache: boolean
  readonly storable: boolean
  readonly refresh: boolean
  #ticket: number
  #rendering: Promise<RenderResponse | MissingPage> | undefined = undefined
  #shows: boolean | undefined = undefined
  #revalidating = false
  #admitted = false
  #noRendererUp = false
  #flight: FlightLead | undefined = undefined
  #storing = false
  #sharedLock: PageLock | undefined = undefined

  constructor(
    readonly origin: VisitOrigin,
    options: VisitOptions,
  ) {
    this.#url = options.url
    this.#context = options.context
    this.#cacheKey = pageKeyOf(options.url)
    this.useCache = options.useCache
    this.storable = options.storable
    this.refresh = options.refresh ?? false
    this.#ticket = options.ticket
  }

  /** The address as far as it changes the page (shared/page-address.ts): what is rendered and what the key is made of. */
  get url(): SitePath {
    return this.#url
  }

  get context(): ResolvedToken {
    return this.#context
  }

  get cacheKey(): string {
    return this.#cacheKey
  }

  /** Answered with the one stored 404 page, these fields of its payload the visitor's own (pages/not-found-page.ts). */
  get notFound(): NotFoundFields | undefined {
    return this.#notFound
  }

  /** The page cache's generation when the render began: a purge since then keeps its page out. */
  get ticket(): number {
    return this.#ticket
  }

  /** The render started while the redirects were still being looked up. */
  get rendering(): Promise<RenderResponse | MissingPage> | undefined {
    return this.#rendering
  }

  /** Whether the render's data shows a draft or an unpublished entry; undefined when the gateway cannot tell. */
  get shows(): boolean | undefined {
    return this.#shows
  }

  /** This request renders again a page already stored (it holds the page's revalidation claim): no client pays for that. */
  get revalidating(): boolean {
    return this.#revalidating
  }

  /** Admitted to render (gateway/admission/): a preview before anything starts, a live page once the cache missed. */
  get admitted(): boolean {
    return this.#admitted
  }

  /** This request's render is the one other misses of its key wait on (pages/page-flights.ts): told how it ended. */
  get flight(): FlightLead | undefined {
    return this.#flight
  }

  /** The rendered page went out whole and is being stored: its flight is settled once that is done. */
  get storing(): boolean {
    return this.#storing
  }

  /** The lock of this page's render across gateways (the shared tier): the page is stored there too, or the lock given up. */
  get sharedLock(): PageLock | undefined {
    return this.#sharedLock
  }

  /** A render started (beside the redirect lookup), or taken up by the render stage (undefined). */
  rendersAlongside(rendering: Promise<RenderResponse | MissingPage> | undefined): void {
    this.#rendering = rendering
  }

  /** What the render's data shows of drafts, once known (undefined again while a new render's data is gathered). */
  showsPreview(shows: boolean | undefined): void {
    this.#shows = shows
  }

  /** The CMS refused the token cookie: the live page instead, with the site's token. */
  useContext(context: ResolvedToken): void {
    this.#context = context
  }

  /** Whether this request renders again a page already stored (it holds the page's revalidation claim). */
  revalidates(revalidating: boolean): void {
    this.#revalidating = revalidating
  }

  admit(): void {
    this.#admitted = true
  }

  /** No renderer was up when it came to be admitted: nothing was charged, and its render fails at once (the stored page or the 503 page). */
  get noRendererUp(): boolean {
    return this.#noRendererUp
  }

  foundNoRendererUp(): void {
    this.#noRendererUp = true
  }

  /** It waited for another's render: what it stores must postdate the purges that came meanwhile. */
  renewTicket(ticket: number): void {
    this.#ticket = ticket
  }

  /** Its page went out whole and is being stored: the flight is settled once that is done, not when the answer closes. */
  startStoring(): void {
    this.#storing = true
  }

  get preview(): boolean {
    return this.context.preview
  }

  /**
   * The render started alongside the redirect lookup, dropped when its page
   * is not needed after all; the misses waiting on it look again (`over`:
   * the page is stored, or redirects), or wait for another's (`again`).
   */
  abandonRender(outcome: 'over' | 'again' = 'over'): void {
    this.#rendering?.then((rendered) => rendered instanceof MissingPage || discard(rendered), () => undefined)
    this.#rendering = undefined
    this.settleFlight({ kind: outcome })
  }

  settleFlight(outcome: FlightOutcome): void {
    this.#flight?.settle(outcome)
  }

  /** From now on the visit is answered with the stored 404 page, with these fields of the visitor's. */
  becomeNotFound(fields: NotFoundFields): void {
    this.#notFound = fields
    this.#url = NOT_FOUND_RENDER_URL
    this.#cacheKey = NOT_FOUND_PAGE_KEY
  }

  /**
   * Leads the render of its key (pages/page-flights.ts): settled by how the
   * answer ends; any way it ends without saying (its visitor left
   * mid-stream, an error) lets the waiters wait for a new render. Late by
   * one turn: a page sent whole is stored by a listener of the same event,
   * and says so first.
   */
  lead(flight: FlightLead): void {
    this.#flight = flight
    this.origin.onEnd(() => setImmediate(() => this.#storing || flight.settle({ kind: 'again' })))
  }

  /** The lock across gateways is given up with the render's flight, unless the page was stored there before. */
  holdSharedLock(lock: PageLock): void {
    this.#sharedLock = lock
    const local = this.#flight
    if (!local) return lock.release()
    this.#flight = {
      settle: (outcome) => {
        lock.release()
        local.settle(outcome)
      },
      get settled() {
        return local.settled
      },
    }
  }
}
