import fastifyRateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** Limits per client address where a route asks for one (/api), and the counter of previews (plugins/app/preview-limit.ts). */
async function rateLimit(app: FastifyInstance): Promise<void> {
  await app.register(fastifyRateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      Object.assign(new Error(`Too many requests; try again in ${context.after}`), { statusCode: 429, code: 'RATE_LIMITED' }),
  })
}

export default fp(rateLimit, { name: 'rate-limit' })
