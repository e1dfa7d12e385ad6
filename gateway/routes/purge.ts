import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { API_PATH } from '../../shared/constants.ts'
import { BadRequestError } from '../errors.ts'

export const PURGE_PATH = `${API_PATH}/purge`
export const PURGE_SECRET_HEADER = 'x-purge-secret'

function sameSecret(given: unknown, secret: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * POST /api/purge: for Craft's webhook on entry save. Empties the caches, or
 * only the query entries of the given sections (pages are always emptied:
 * any page may show any section). Absent unless PURGE_SECRET is set.
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
    const body = (request.body === undefined ? {} : request.body) as { sections?: unknown } | null
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('The body must be a JSON object')
    const { sections } = body
    if (sections !== undefined && (!Array.isArray(sections) || !sections.every((s) => typeof s === 'string' && s.length < 200))) {
      throw new BadRequestError('sections must be a list of section handles')
    }
    const purged = app.cache.purge(sections as string[] | undefined)
    app.pageCache.clear()
    request.log.info({ sections: sections ?? 'all', purged }, 'cache purged')
    return { purged, sections: sections ?? null }
  })
}
