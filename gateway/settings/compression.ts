import { settingsOf } from '../../shared/env.ts'

/**
 * Brotli quality for answers compressed as they go out. Measured on the home
 * page (docs/performance-history.md, issue 17): quality 4 made scenario 4 with
 * `Accept-Encoding: br` 0.68-0.73 of scenario 4 without, at 217 µs a page.
 * Quality 0 costs about a fifth less than 1 on five pages (35-66 µs a page
 * against 46-95 µs) for 1.4% more bytes at most (the home page came out
 * smaller); see there for the figures. Stored pages have their own stronger
 * variants (cache/page-cache.ts).
 */
const DEFAULT_FRESH_BROTLI_QUALITY = 0
const DEFAULT_FRESH_GZIP_LEVEL = 6
/**
 * @fastify/compress compresses a whole answer in one call up to its
 * syncThreshold, which it derives from the cores it sees: 8,192 bytes on two,
 * so a 27 KB fresh page took the stream path there, at 1.5 to 2.3 times the
 * CPU of one call. Pages are up to some 60 KB: one call for each.
 */
const DEFAULT_COMPRESS_SYNC_THRESHOLD_BYTES = 64 * 1024

const SIZE_CHECK = 'the size of a fresh page (`X-Cache: MISS`) fetched with `curl --compressed -H "Accept-Encoding: br" -w "%{size_download}"`'

/** Answers compressed as they go out (fresh pages, JSON); stored pages keep copies made off the event loop. */
export const COMPRESSION_SETTINGS = settingsOf('compression', {
  compression: {
    brotliQuality: {
      name: 'FRESH_BROTLI_QUALITY',
      kind: 'integer',
      default: DEFAULT_FRESH_BROTLI_QUALITY,
      min: 0,
      max: 11,
      description:
        'brotli quality of answers compressed as they go out: fresh pages and JSON (stored pages keep their own brotli 5, made off the event loop); chosen by measurement in [performance](performance.md)',
      effect: `${SIZE_CHECK}: a higher quality, fewer bytes and more CPU per page`,
    },
    gzipLevel: {
      name: 'FRESH_GZIP_LEVEL',
      kind: 'integer',
      default: DEFAULT_FRESH_GZIP_LEVEL,
      min: 1,
      max: 9,
      description: 'gzip level of the same answers, for clients without brotli',
      effect: 'as `FRESH_BROTLI_QUALITY`, with `Accept-Encoding: gzip`',
    },
    syncThresholdBytes: {
      name: 'COMPRESS_SYNC_THRESHOLD_BYTES',
      kind: 'integer',
      default: DEFAULT_COMPRESS_SYNC_THRESHOLD_BYTES,
      min: 0,
      max: 16 * 1024 * 1024,
      description: 'whole answers up to this size are compressed in one call; larger ones, and streamed pages, through a stream (0: always a stream)',
      effect: 'the same bytes either way: only the CPU per answer differs (`npm run bench`, `process_cpu_seconds_total` on `/metrics`)',
    },
  },
})
