import type { FastifyInstance } from 'fastify'
import { PAYLOAD_SUFFIX } from '../../shared/constants.ts'
import { isPayloadUrl } from '../../shared/payload.ts'
import { localLocation } from '../../shared/local-location.ts'
import { encodedPath } from '../../shared/page-address.ts'
import { splitSitePath } from '../../shared/site-path.ts'
import { BadRequestError } from '../errors.ts'
import { foreignAssets } from './foreign-assets.ts'
import { pageAnswers } from './pages.ts'
import { payloadAnswers } from './payloads.ts'

/**
 * The one route of pages and their payloads: every GET no other route takes.
 * Drain, the cache status, the error answers and the metrics of the page-cache
 * fast path know a page by it.
 */
export const CATCH_ALL_ROUTE = '/*'

const isPayloadPath = (path: string): boolean => path.endsWith(PAYLOAD_SUFFIX)

/** Whether a request of the catch-all route asks for a payload (JSON, its errors too) rather than a page, as the route tells them apart. */
export function asksForPayload(url: string): boolean {
  const site = splitSitePath(url)
  return site ? isPayloadPath(site.path) : isPayloadUrl(url)
}

/** Pages (proxied to a renderer, streamed through) and their payloads. */
export async function catchAllRoute(app: FastifyInstance): Promise<void> {
  const page = pageAnswers(app)
  const payload = payloadAnswers(app)
  const foreignAsset = foreignAssets(app)
  app.get(CATCH_ALL_ROUTE, async (request, reply) => {
    const url = splitSitePath(request.url)
    if (!url) throw new BadRequestError('Invalid path')
    if (isPayloadPath(url.path)) return payload(request, reply, url)
    // A bundle file of another build (its own build's have routes of their own): from the renderers, else the 404 page.
    if (url.path.startsWith('/assets/')) {
      const answered = await foreignAsset(url.path, request, reply)
      if (answered) return answered
    }
    if (url.path.length > 1 && url.path.endsWith('/')) {
      // From the decoded path: `/over-ons%2F` is `/over-ons/`, and goes to `/over-ons`, never to itself.
      const target = localLocation(`${encodedPath(`/${url.path.split('/').filter(Boolean).join('/')}`)}${url.search}`)
      if (target !== request.url) return reply.redirect(target, 301)
    }
    return page(request, reply, url)
  })
}
