import { createHash } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** What a CDN may do with a public answer: keep it as long as the gateway would, then serve it stale while it refreshes. */
export function publicCacheControl(ttlMs: number, staleWhileRevalidateMs: number): string {
  return `public, max-age=0, s-maxage=${Math.floor(ttlMs / 1000)}, stale-while-revalidate=${Math.floor(staleWhileRevalidateMs / 1000)}`
}

/** A freshly rendered page: its CSP nonce is for this response alone, so no shared cache may hand it on; the browser may revalidate. */
export const PRIVATE_NO_CACHE = 'private, no-cache'

/** A weak validator: the same bytes in another encoding are the same page. */
export function weakEtag(body: string | Buffer): string {
  return `W/"${createHash('sha1').update(body).digest('base64url').slice(0, 27)}"`
}

/** Whether the request's If-None-Match already names this ETag (a Fastify request or a bare node:http one). */
export function notModified(request: { headers: IncomingHttpHeaders }, etag: string): boolean {
  const header = request.headers['if-none-match']
  if (typeof header !== 'string') return false
  const bare = etag.replace(/^W\//, '')
  return header.split(',').some((candidate) => {
    const value = candidate.trim()
    return value === '*' || value.replace(/^W\//, '') === bare
  })
}

/** Sets the ETag, and answers 304 when the client has this version already. */
export function sendWithEtag(request: FastifyRequest, reply: FastifyReply, body: string | Buffer): FastifyReply {
  // Encoded once: hashing and sending a string would each encode it again, and Fastify would measure it in a pass of its own.
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  const etag = weakEtag(bytes)
  reply.header('etag', etag)
  if (notModified(request, etag)) return reply.code(304).send()
  return reply.send(bytes)
}
