// What compressing one fresh page costs at each brotli quality and gzip
// level, in isolation on the page's real bytes, the two ways the gateway's
// @fastify/compress does it (gateway/plugins/external/compress.ts):
//
// - `sync`: one brotliCompressSync/gzipSync call on the event loop. The
//   plugin does this for a whole buffer up to its syncThreshold, which the
//   gateway sets (COMPRESS_SYNC_THRESHOLD_BYTES, 65,536 by default).
// - `stream`: a createBrotliCompress/createGzip stream with the gateway's
//   flush mode (BROTLI_OPERATION_FLUSH / Z_SYNC_FLUSH), the page written as
//   one chunk, as for a larger page; the work runs on libuv's threadpool.
//
// CPU time is the whole process's (process.cpuUsage counts every thread),
// per page. Used by `npm run bench` (scenario 4c's section of results.json);
// on its own:
//
//   node scripts/bench-compression.mjs PAGE.html
import { readFileSync } from 'node:fs'
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib'
import { mainFileArgument } from './main-file-argument.mjs'

/** The gateway's options (gateway/app.ts) at another level. */
const brotliOptions = (quality) => ({ params: { [constants.BROTLI_PARAM_QUALITY]: quality }, flush: constants.BROTLI_OPERATION_FLUSH })
const gzipOptions = (level) => ({ level, flush: constants.Z_SYNC_FLUSH })

/** Every level measured; `current` marks the gateway's levels when the caller names them (bench.mjs reads them from the gateway's configuration). */
export const levelsFor = (current = {}) => [
  ...[0, 1, 2, 3, 4, 5, 6, 7, 8].map((quality) => ({ encoding: 'br', level: quality, options: brotliOptions(quality), current: quality === current.brotliQuality })),
  ...[1, 2, 3, 4, 5, 6, 9].map((level) => ({ encoding: 'gzip', level, options: gzipOptions(level), current: level === current.gzipLevel })),
]

function compressStreaming(encoding, options, page) {
  return new Promise((resolve, reject) => {
    const stream = encoding === 'br' ? createBrotliCompress(options) : createGzip(options)
    let bytes = 0
    stream.on('data', (chunk) => (bytes += chunk.length))
    stream.on('end', () => resolve(bytes))
    stream.on('error', reject)
    stream.end(page)
  })
}

const compressSync = (encoding, options, page) => (encoding === 'br' ? brotliCompressSync(page, options) : gzipSync(page, options)).length

const MODES = ['sync', 'stream']
const onceOf = (mode, encoding, options, page) => (mode === 'sync' ? async () => compressSync(encoding, options, page) : () => compressStreaming(encoding, options, page))

/**
 * CPU microseconds per page and compressed bytes at each level. Every level
 * is warmed before any is timed, then timed in two passes of `minMs` / 2 each,
 * the second in reverse order: timed one after the other from cold, the
 * first level measured dearer than it is (brotli quality 0 above quality 1 in
 * two full runs, 0.92 of it when the two were alternated), and a machine that
 * speeds up or slows down during the table now weighs on both ends alike.
 */
export async function measureCompression(page, { minMs = 300, current } = {}) {
  const levels = levelsFor(current)
  const rows = levels.map(({ encoding, level, current: isCurrent }) => ({ encoding, level, current: isCurrent, bytes: 0, sync_cpu_us: 0, stream_cpu_us: 0 }))
  const spent = levels.map(() => ({ sync: { cpu: 0, runs: 0 }, stream: { cpu: 0, runs: 0 } }))
  for (const [index, { encoding, options }] of levels.entries()) {
    for (const mode of MODES) for (let i = 0; i < 5; i++) rows[index].bytes = await onceOf(mode, encoding, options, page)()
  }
  const order = [...levels.keys()]
  for (const pass of [order, [...order].reverse()]) {
    for (const index of pass) {
      const { encoding, options } = levels[index]
      for (const mode of MODES) {
        const once = onceOf(mode, encoding, options, page)
        const cpuBefore = process.cpuUsage()
        const started = performance.now()
        let runs = 0
        while (performance.now() - started < minMs / 2) {
          await once()
          runs++
        }
        const cpu = process.cpuUsage(cpuBefore)
        spent[index][mode].cpu += cpu.user + cpu.system
        spent[index][mode].runs += runs
      }
    }
  }
  for (const [index, row] of rows.entries()) {
    for (const mode of MODES) row[`${mode}_cpu_us`] = Number((spent[index][mode].cpu / spent[index][mode].runs).toFixed(1))
    row.ratio = Number((row.bytes / page.length).toFixed(3))
  }
  return { page_bytes: page.length, levels: rows }
}

/** The table of a measurement. */
export function describeCompression({ page_bytes: pageBytes, levels }) {
  const lines = [
    `compression of one fresh page (${pageBytes} bytes), CPU per page:`,
    '| encoding | level | bytes | of the page | sync µs | stream µs |',
    '|---|---|---|---|---|---|',
  ]
  for (const row of levels) lines.push(`| ${row.encoding} | ${row.level}${row.current ? ' (now)' : ''} | ${row.bytes} | ${row.ratio} | ${row.sync_cpu_us} | ${row.stream_cpu_us} |`)
  return lines.join('\n')
}

const pageFile = mainFileArgument(import.meta.url, 'node scripts/bench-compression.mjs PAGE.html')
if (pageFile) console.log(describeCompression(await measureCompression(readFileSync(pageFile))))
