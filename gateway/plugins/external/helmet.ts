import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'

const OPTIONS: Readonly<HelmetOptions> = {
  // Pages get their own policy (routes/pages.ts): nonces or hashes for the inline scripts of streamed SSR; every other answer a default one.
  contentSecurityPolicy: false,
  // frame-ancestors in that policy lets the CMS frame the site for live preview; X-Frame-Options would not.
  frameguard: false,
  // Set by plugins/app/security-headers.ts, and only over HTTPS.
  strictTransportSecurity: false,
  crossOriginEmbedderPolicy: false,
  referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
}

/**
 * The headers helmet's middleware sets with these options, found once by
 * running it against a response that only records them. With the policy
 * left to the gateway they do not depend on the request.
 */
export function helmetHeaders(options: Readonly<HelmetOptions>): Record<string, string> {
  const headers: Record<string, string> = {}
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = String(value)
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()]
    },
  }
  let finished = false
  helmet({ ...options })({} as IncomingMessage, recorder as unknown as ServerResponse, () => {
    finished = true
  })
  if (!finished) throw new Error('helmet did not set its headers at once')
  return headers
}

/** helmet's headers of every answer: a page the gateway renders for itself (pages/page-refresh.ts) is stored with them too. */
export const HELMET_HEADERS: Readonly<Record<string, string>> = Object.freeze(helmetHeaders(OPTIONS))

/**
 * helmet's security headers on every answer; what it leaves out is set by
 * plugins/app/security-headers.ts. @fastify/helmet built helmet's middleware
 * anew on every request, in an async hook and a second one: about a tenth of
 * the gateway's own time on a rendered page. The headers are worked out once
 * here, and one callback hook sets them.
 */
async function helmetPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(HELMET_HEADERS)
    done()
  })
}

export default fp(helmetPlugin, { name: 'helmet' })
