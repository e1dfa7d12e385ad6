import type { FastifyInstance } from 'fastify'
import { BUILD_META_PREFIX, LATEST_BUILD_PATH } from '../../shared/constants.ts'
import { BuildNotFoundError } from '../errors.ts'

/** The build manifest: which build is live, and its route rules. */
export async function buildRoutes(app: FastifyInstance): Promise<void> {
  app.get(LATEST_BUILD_PATH, async (_request, reply) => {
    reply.header('cache-control', 'no-cache')
    return { id: app.build.id, timestamp: app.build.timestamp }
  })

  app.get<{ Params: { file: string } }>(`${BUILD_META_PREFIX}:file`, async (request, reply) => {
    const id = request.params.file.endsWith('.json') ? request.params.file.slice(0, -'.json'.length) : undefined
    if (id !== app.build.id) throw new BuildNotFoundError()
    reply.header('cache-control', 'public, max-age=31536000, immutable')
    return app.build.meta()
  })
}
