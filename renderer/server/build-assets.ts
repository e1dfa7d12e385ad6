import { existsSync } from 'node:fs'
import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

/**
 * The client bundle of this renderer's build under /assets/, as the gateway of
 * the same build serves it (content-hashed, so immutable). The pages this
 * renderer writes name these files; a gateway of another build asks for them
 * here. Nothing but dist/client: the internal network reads no other file.
 */
export async function serveBuildAssets(app: FastifyInstance, distDir: string): Promise<void> {
  const root = join(distDir, 'client')
  if (!existsSync(root)) return
  await app.register(fastifyStatic, { root, prefix: '/assets/', wildcard: true, index: false, decorateReply: false, immutable: true, maxAge: 31_536_000_000, dotfiles: 'deny' })
}
