import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { defaultContentSecurityPolicy } from '../../http/content-security.ts'

export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains'

/**
 * What helmet (plugins/external/helmet.ts) leaves to the gateway: HSTS, over
 * HTTPS only, and the Content-Security-Policy of every answer that is not a
 * rendered page (a page brings its own, with its nonce or hashes).
 */
async function securityHeaders(app: FastifyInstance): Promise<void> {
  const { frameAncestors } = app.config
  // A callback hook: an async one costs a promise and a microtask on every answer.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.protocol === 'https') reply.header('strict-transport-security', STRICT_TRANSPORT_SECURITY)
    if (!reply.hasHeader('content-security-policy')) {
      const html = String(reply.getHeader('content-type') ?? '').startsWith('text/html')
      reply.header('content-security-policy', defaultContentSecurityPolicy(html, frameAncestors))
    }
    done(null, payload)
  })
}

export default fp(securityHeaders, { name: 'security-headers', dependencies: ['config', 'helmet'] })
