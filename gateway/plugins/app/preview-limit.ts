import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { PreviewLimit } from '../../preview/preview-limit.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** What one client's previews (pages and payloads alike) may cost. */
    previewLimit: PreviewLimit
  }
}

async function previewLimit(app: FastifyInstance): Promise<void> {
  const { rateLimit } = app.config
  app.decorate('previewLimit', new PreviewLimit(app, rateLimit.previewMax, rateLimit.windowMs))
}

export default fp(previewLimit, { name: 'preview-limit', dependencies: ['config', '@fastify/rate-limit'] })
