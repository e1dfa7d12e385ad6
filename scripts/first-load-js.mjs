// The JavaScript a visitor's browser loads on a first visit of the home page,
// as built in dist/, in two counts (renderer/server/module-preloads.ts lists both):
// - before the first paint: the entry and its static imports, which the
//   page's head preloads;
// - the whole first visit: those, then the chunks the entry loads once the
//   page has painted (hydrate.tsx's chunk with its static imports: React DOM,
//   the router, the app) and the home screen's chunk with its static imports.
// Each file compressed on its own, as it is served (gzip level 9, brotli
// quality 11). `npm run bench` prints it; `npm run bench -- --js` prints only it.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import { modulePreloadsOf, preloadsFor } from '../renderer/server/module-preloads.ts'

/** Issue 34's budget for what loads before the first paint: at most 30 KB (30,000 bytes) gzip. */
export const BEFORE_PAINT_JS_BUDGET_GZIP_BYTES = 30_000
/** Issue 34's budget for all JavaScript of a first visit, hydration included: at most 100 KB (100,000 bytes) gzip. */
export const FIRST_VISIT_JS_BUDGET_GZIP_BYTES = 100_000

function weigh(root, urls) {
  let raw = 0
  let gzip = 0
  let brotli = 0
  for (const url of urls) {
    const bytes = readFileSync(join(root, 'dist/client', url.slice('/assets/'.length)))
    raw += bytes.length
    gzip += gzipSync(bytes, { level: 9 }).length
    brotli += brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length
  }
  return { files: urls.length, raw, gzip, brotli }
}

/**
 * The build in `root`/dist, by the renderer's own list of what the home page
 * preloads (renderer/server/module-preloads.ts), so this counts exactly what the
 * browser fetches: the whole first visit, with `beforePaint` the part that
 * loads before the first paint.
 */
export function firstLoadJavaScript(root) {
  const build = JSON.parse(readFileSync(join(root, 'dist/build.json'), 'utf8'))
  const metafile = JSON.parse(readFileSync(join(root, 'dist/client-meta.json'), 'utf8'))
  const preloads = modulePreloadsOf(metafile, build.assets.client)
  const { withPage, afterPaint } = preloadsFor(preloads, 'home')
  const beforePaint = [...new Set([build.assets.client, ...withPage])]
  const firstVisit = [...new Set([...beforePaint, ...afterPaint])]
  return { ...weigh(root, firstVisit), beforePaint: weigh(root, beforePaint) }
}

/** Two lines for people: the weights in kB (1,000 bytes), each against its budget. */
export function describeFirstLoad({ files, raw, gzip, brotli, beforePaint }) {
  const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`
  const line = (what, weight, budget) =>
    `${what} (home, ${weight.files} files): ${kb(weight.raw)} raw, ${kb(weight.gzip)} gzip, ${kb(weight.brotli)} brotli; ${weight.gzip <= budget ? 'within' : 'OVER'} the budget of ${kb(budget)} gzip`
  return [
    line('JavaScript before the first paint', beforePaint, BEFORE_PAINT_JS_BUDGET_GZIP_BYTES),
    line('JavaScript of a first visit', { files, raw, gzip, brotli }, FIRST_VISIT_JS_BUDGET_GZIP_BYTES),
  ].join('\n')
}
