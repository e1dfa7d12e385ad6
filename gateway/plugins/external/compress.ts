import { constants as zlib } from 'node:zlib'
import fastifyCompress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** Brotli or gzip for every text answer; each write is flushed so a streamed page stays streamed. */
async function compress(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: 1024,
    zlibOptions: { level: 6, flush: zlib.Z_SYNC_FLUSH },
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 }, flush: zlib.BROTLI_OPERATION_FLUSH },
  })
}

export default fp(compress, { name: 'compress' })
