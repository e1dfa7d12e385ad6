import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { API_PATH } from '../../shared/constants.ts'
import { TAG_PATTERN } from '../cache/cache-tags.ts'
import { purgeLocally } from '../cache/purge-locally.ts'
import { BadRequestError } from '../errors.ts'

export const PURGE_PATH = `${API_PATH}/purge`
export const PURGE_SECRET_HEADER = 'x-purge-secret'

function sameSecret(given: unknown, secret: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}

const isTagList = (value: unknown): value is string[] => Array.isArray(value) && value.every((tag) => typeof tag === 'string' && TAG_PATTERN.test(tag))

/**
 * POST /api/purge: for Craft's webhook on entry save. Empties the caches, or
 * only the entries and pages built from the given sections or tags (the
 * tags of the CDN headers: section handles and `entry:<id>`). With a shared
 * tier, Redis loses them too and every other gateway is told. Absent unless
 * PURGE_SECRET is set.
 */
export async function purgeRoutes(app: FastifyInstance): Promise<void> {
  const secret = app.config.purgeSecret
  if (!secret) return
  const rateLimit = { max: app.config.rateLimit.purgeMax, timeWindow: app.config.rateLimit.windowMs }
  app.post(PURGE_PATH, { config: { rateLimit } }, async (request, reply) => {
    if (!sameSecret(request.headers[PURGE_SECRET_HEADER], secret)) {
      return reply.code(401).send({ errors: [{ message: 'Wrong or missing purge secret', extensions: { code: 'UNAUTHORIZED' } }] })
    }
    // No body purges everything; a JSON `null` is a mistake, not a request for that.
    const body = (request.body === undefined ? {} : request.body) as { sections?: unknown; tags?: unknown } | null
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('The body must be a JSON object')
    const { sections, tags } = body
    if (sections !== undefined && !isTagList(sections)) throw new BadRequestError('sections must be a list of section handles')
    if (tags !== undefined && !isTagList(tags)) throw new BadRequestError('tags must be a list of tags such as "jobs" or "entry:123"')
    const named = sections === undefined && tags === undefined ? undefined : [...new Set([...(sections ?? []), ...(tags ?? [])])]
    const { purged, pages } = purgeLocally(app, named)
    const shared = app.sharedCache ? await app.sharedCache.purge(named) : 'off'
    if (shared === 'pending') request.log.warn('redis unreachable: other gateways are told when it is back')
    request.log.info({ tags: named ?? 'all', purged, pages, shared }, 'cache purged')
    return { purged, pages, sections: sections ?? null, tags: tags ?? null, shared }
  })
}
