import fastifyHelmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** helmet's security headers on every answer; what it leaves out is set by plugins/app/security-headers.ts. */
async function helmet(app: FastifyInstance): Promise<void> {
  await app.register(fastifyHelmet, {
    // Pages get their own policy (routes/pages.ts): nonces or hashes for the inline scripts of streamed SSR; every other answer a default one.
    contentSecurityPolicy: false,
    // frame-ancestors in that policy lets the CMS frame the site for live preview; X-Frame-Options would not.
    frameguard: false,
    // Set by plugins/app/security-headers.ts, and only over HTTPS.
    strictTransportSecurity: false,
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
  })
}

export default fp(helmet, { name: 'helmet' })
