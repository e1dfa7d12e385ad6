import type { FastifyReply, FastifyRequest } from 'fastify'
import { API_PATH, CACHE_STATUS_HEADER } from '../../shared/constants.ts'

/** Pattern of the catch-all route of pages and payloads (routes/pages.ts). */
const PAGE_ROUTE_PATTERN = '/*'

function apiOrPage(request: FastifyRequest): boolean {
  if (request.routeOptions.url === PAGE_ROUTE_PATTERN) return true
  const path = request.url.split('?', 1)[0] ?? ''
  return path === API_PATH || path.startsWith(`${API_PATH}/`)
}

/**
 * onSend: every /api and page answer says what the caches did. One that never
 * went through a cache (an error, a redirect, a fallback page) says BYPASS,
 * so a client never reads a missing header as a miss that was stored.
 */
export async function cacheStatusOrBypass(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!reply.hasHeader(CACHE_STATUS_HEADER) && apiOrPage(request)) reply.header(CACHE_STATUS_HEADER, 'BYPASS')
}
