import { constants as zlib } from 'node:zlib'
import fastifyCompress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * Brotli or gzip for every text answer, at the levels and one-call threshold
 * of the configuration (FRESH_BROTLI_QUALITY, FRESH_GZIP_LEVEL,
 * COMPRESS_SYNC_THRESHOLD_BYTES); each write of a stream is flushed, so a
 * streamed page stays streamed.
 */
async function compress(app: FastifyInstance): Promise<void> {
  const { brotliQuality, gzipLevel, syncThresholdBytes } = app.config.compression
  await app.register(fastifyCompress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: 1024,
    syncThreshold: syncThresholdBytes,
    zlibOptions: { level: gzipLevel, flush: zlib.Z_SYNC_FLUSH },
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: brotliQuality }, flush: zlib.BROTLI_OPERATION_FLUSH },
  })
}

export default fp(compress, { name: 'compress', dependencies: ['config'] })
