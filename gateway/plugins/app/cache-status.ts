import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { API_PATH, CACHE_STATUS_HEADER } from '../../../shared/constants.ts'
import { CATCH_ALL_ROUTE } from '../../routes/catch-all.ts'

function apiOrPage(request: FastifyRequest): boolean {
  if (request.routeOptions.url === CATCH_ALL_ROUTE) return true
  const path = request.url.split('?', 1)[0] ?? ''
  return path === API_PATH || path.startsWith(`${API_PATH}/`)
}

/**
 * onSend: every /api and page answer says what the caches did. One that never
 * went through a cache (an error, a redirect, a fallback page) says BYPASS,
 * so a client never reads a missing header as a miss that was stored.
 */
function cacheStatusOrBypass(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  if (!reply.hasHeader(CACHE_STATUS_HEADER) && apiOrPage(request)) reply.header(CACHE_STATUS_HEADER, 'BYPASS')
  done(null, payload)
}

async function cacheStatus(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', cacheStatusOrBypass)
}

export default fp(cacheStatus, { name: 'cache-status' })
