import type { FastifyInstance } from 'fastify'
import type { RedirectRule } from '../../shared/build-meta.ts'
import { localLocation } from '../../shared/local-location.ts'
import { encodedPath } from '../../shared/page-address.ts'
import type { PageFlights } from './page-flights.ts'
import type { PageVisit } from './page-visit.ts'
import type { RenderStage } from './render-stage.ts'
import { UNDECIDED } from './redirects.ts'
import { PENDING, settledAtOnce } from './settled-at-once.ts'

/** Where a visit goes instead of its page: the location and status of a redirect rule. */
export interface Redirection {
  to: string
  statusCode: number
}

/** The query string of an address as it was asked for, with its `?`, or ''. */
const searchOf = (address: string): string => {
  const cut = address.indexOf('?')
  return cut === -1 ? '' : address.slice(cut)
}

/**
 * The redirect stage: a rule for the visit's path, from the route's
 * configuration or the CMS. Rules at hand (cached) decide before any render
 * starts; when the CMS must be asked, the render starts alongside, so a slow
 * CMS costs the page one upstream timeout, not two in a row. A path of this
 * site typed with capitals (`/Kantoren`) goes to its own lower-case address,
 * or straight on where a rule takes that one (`/Schade`).
 */
export class RedirectStage {
  constructor(
    private readonly app: FastifyInstance,
    private readonly flights: PageFlights,
    private readonly renders: RenderStage,
  ) {}

  /**
   * The redirect to answer with, if a rule takes the path; the render started alongside is then dropped, and so is a
   * page stored before the rule came. Most visits are decided at once, without a promise: the live rules are at hand,
   * none takes the path, and the path is in lower case.
   */
  redirection(visit: PageVisit): Redirection | undefined | Promise<Redirection | undefined> {
    const { path } = visit.url
    if (!visit.preview && path === path.toLowerCase() && this.app.redirects.matchAtOnce(path) === undefined) return undefined
    return this.lookedUp(visit)
  }

  private async lookedUp(visit: PageVisit): Promise<Redirection | undefined> {
    const rule = (await this.ruleOf(visit, visit.url.path, true)) ?? (await this.lowerCase(visit))
    if (!rule) return undefined
    // Decided on what is sent: a path of this site as one `/` and a page, and never the address asked for (a loop).
    const to = rule.to.startsWith('/') ? localLocation(rule.to) : rule.to
    if (to === visit.origin.address) return undefined
    visit.abandonRender()
    // A page stored before the rule came is not served past its TTL while the path redirects.
    if (visit.useCache) this.app.pageCache.drop(visit.cacheKey)
    return { to, statusCode: rule.statusCode }
  }

  /** A rule for the path, at once when the live rules are at hand, else asked of the cache (the render alongside when `alongside`). */
  private async ruleOf(visit: PageVisit, path: string, alongside: boolean): Promise<RedirectRule | undefined> {
    const atOnce = visit.preview ? UNDECIDED : this.app.redirects.matchAtOnce(path)
    if (atOnce !== UNDECIDED) return atOnce
    return alongside ? this.lookUp(visit) : this.app.redirects.match(path, visit.context, visit.origin.log)
  }

  /**
   * A path with capitals whose lower case is a page of the route table or
   * has a rule: there, with the query as it was asked (301). Nothing else
   * is changed, so the target is always one of the site's own addresses.
   */
  private async lowerCase(visit: PageVisit): Promise<RedirectRule | undefined> {
    const { path } = visit.url
    const lower = path.toLowerCase()
    if (lower === path) return undefined
    const rule = await this.ruleOf(visit, lower, false)
    if (rule) return rule
    if (this.app.payloads.routes.match(lower).kind !== 'route') return undefined
    return { from: path, to: `${encodedPath(lower)}${searchOf(visit.origin.address)}`, statusCode: 301 }
  }

  /** The rule from the cache or the CMS, the render started alongside when the CMS must be asked. */
  private async lookUp(visit: PageVisit): Promise<RedirectRule | undefined> {
    const lookup = this.app.redirects.match(visit.url.path, visit.context, visit.origin.log)
    if ((await settledAtOnce(lookup)) !== PENDING) return lookup
    // Misses of one page that all find the rules unknown (a cold gateway, a purge of the redirects) start one render alongside, not one each.
    if (!this.flights.coalesces(visit) || this.flights.lead(visit)) visit.rendersAlongside(this.renders.start(visit))
    return lookup
  }
}
