import { constants as zlib } from 'node:zlib'
import fastifyCompress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * Brotli quality for answers compressed as they go out (fresh pages, JSON).
 * Measured on the home page (docs/performance.md, issue 17): quality 4 cost
 * 267 µs a page and made scenario 4 with `Accept-Encoding: br` 0.68-0.73 of
 * scenario 4 without; quality 2 costs 114 µs for 6% more bytes (7,810
 * against 7,379) and 0.86. Stored pages have their own stronger variants
 * (cache/page-cache.ts).
 */
const ON_THE_FLY_BROTLI_QUALITY = 2

/** Brotli or gzip for every text answer; each write is flushed so a streamed page stays streamed. */
async function compress(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: 1024,
    zlibOptions: { level: 6, flush: zlib.Z_SYNC_FLUSH },
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: ON_THE_FLY_BROTLI_QUALITY }, flush: zlib.BROTLI_OPERATION_FLUSH },
  })
}

export default fp(compress, { name: 'compress' })
