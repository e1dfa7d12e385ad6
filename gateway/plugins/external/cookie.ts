import fastifyCookie from '@fastify/cookie'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** Cookies read and set: the preview token's (preview/tokens.ts). */
async function cookie(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCookie)
}

export default fp(cookie, { name: 'cookie' })
