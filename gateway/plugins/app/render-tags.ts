import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { RenderTags } from '../../payload/render-tags.ts'

declare module 'fastify' {
  interface FastifyInstance {
    renderTags: RenderTags
  }
}

/** The cache tags of the payloads each render asked for, by the render's request id, until its page is sent or stored. */
async function renderTags(app: FastifyInstance): Promise<void> {
  // A render's payload requests arrive within its timeout; twice that is ample.
  app.decorate('renderTags', new RenderTags(app.config.renderTimeoutMs * 2))
}

export default fp(renderTags, { name: 'render-tags', dependencies: ['config'] })
