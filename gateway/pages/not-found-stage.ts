import type { FastifyInstance, FastifyReply } from 'fastify'
import { payloadInput } from '../payload/build-payload.ts'
import type { CacheAnswers } from './cache-answers.ts'
import { NOT_FOUND_PAGE_KEY, type NotFoundFields } from './not-found-page.ts'
import type { PageVisit } from './page-visit.ts'

/**
 * A live page known to be missing without a render (a path no route takes,
 * a bad slug or page number, an entry the cache knows is not there): the
 * fields of the 404 page its visitor gets.
 */
export function knownMissing(app: FastifyInstance, visit: PageVisit): NotFoundFields | undefined {
  if (!visit.useCache) return undefined
  const input = payloadInput(visit.url.path, new URLSearchParams(visit.url.search), visit.context)
  const message = app.payloads.knownMissing(input)
  if (message === undefined) return undefined
  return { path: input.path, fullPath: input.fullPath, message, suggestion: app.payloads.nearest.suggest(input.path, visit.context) }
}

/**
 * The stage of the stored 404 page: one page for every missing address,
 * each visitor's own fields filled in (pages/not-found-page.ts). Without a
 * stored one it is rendered once: 404s that come meanwhile wait for that
 * render, instead of each rendering the same page.
 */
export class NotFoundStage {
  /** The render of the stored 404 page under way, settled once it is stored (or failed). */
  private rendering: Promise<void> | undefined

  constructor(
    private readonly app: FastifyInstance,
    private readonly cache: CacheAnswers,
  ) {}

  /** The visit answered with the stored 404 page, else by `render` (admitted and rendered as any page). */
  async answer(visit: PageVisit, reply: FastifyReply, fields: NotFoundFields, render: () => Promise<FastifyReply>): Promise<FastifyReply> {
    visit.abandonRender()
    // The page is gone: one stored under its own address is not served past its TTL (nor stands in for it).
    if (visit.useCache) this.app.pageCache.drop(visit.cacheKey)
    visit.becomeNotFound(fields)
    if (this.rendering !== undefined && this.app.pageCache.get(NOT_FOUND_PAGE_KEY) === undefined) await this.rendering
    const stored = this.cache.fromCache(visit, reply)
    if (stored) return stored
    const answered = render()
    if (visit.storable && this.rendering === undefined) {
      const settled = answered.then(
        () => undefined,
        () => undefined,
      )
      this.rendering = settled
      void settled.then(() => {
        if (this.rendering === settled) this.rendering = undefined
      })
    }
    return answered
  }
}
