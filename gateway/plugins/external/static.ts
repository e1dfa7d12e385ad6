import { existsSync } from 'node:fs'
import { join } from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** The site's public files, and the client bundle under /assets/ (content-hashed, so immutable). */
async function staticFiles(app: FastifyInstance): Promise<void> {
  const { config } = app
  await app.register(fastifyStatic, { root: config.publicDir, wildcard: false, index: false, preCompressed: false })
  const clientDir = join(config.distDir, 'client')
  if (existsSync(clientDir)) {
    await app.register(fastifyStatic, {
      root: clientDir,
      prefix: '/assets/',
      // In dev the client is rebuilt under new names while the gateway runs: looked up per request, not listed once.
      wildcard: config.devReloadFile !== undefined,
      decorateReply: false,
      immutable: true,
      maxAge: 31_536_000_000,
      preCompressed: true,
    })
  }
}

// After compress, whose route hook must see these routes to compress the public files.
export default fp(staticFiles, { name: 'static', dependencies: ['config', 'compress'] })
