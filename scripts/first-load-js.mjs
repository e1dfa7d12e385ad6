// The JavaScript a visitor's browser loads before the home page is
// interactive, as built in dist/: the entry, the chunks it loads before
// hydrating (static imports, and hydrate.tsx's chunk after the first paint),
// and the home screen's chunk with its static imports: the modules the page
// preloads (renderer/module-preloads.ts). Each file
// compressed on its own, as it is served (gzip level 9, brotli quality 11).
// `npm run bench` prints it; `npm run bench -- --js` prints only it.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import { modulePreloadsOf, preloadsFor } from '../renderer/module-preloads.ts'

/** Issue 15's budget for the first load: at most 90 KB (90,000 bytes) gzip. */
export const FIRST_LOAD_JS_BUDGET_GZIP_BYTES = 90_000

/**
 * The build in `root`/dist: the entry and what the home page preloads (the
 * renderer's own list, renderer/module-preloads.ts), so this counts exactly
 * what the browser fetches before the home page hydrates.
 */
export function firstLoadJavaScript(root) {
  const build = JSON.parse(readFileSync(join(root, 'dist/build.json'), 'utf8'))
  const metafile = JSON.parse(readFileSync(join(root, 'dist/client-meta.json'), 'utf8'))
  const preloads = modulePreloadsOf(metafile, build.assets.client)
  const { withPage, afterPaint } = preloadsFor(preloads, 'home')
  const urls = new Set([build.assets.client, ...withPage, ...afterPaint])
  const files = [...urls].map((url) => join('dist/client', url.slice('/assets/'.length)))
  let raw = 0
  let gzip = 0
  let brotli = 0
  for (const file of files) {
    const bytes = readFileSync(join(root, file))
    raw += bytes.length
    gzip += gzipSync(bytes, { level: 9 }).length
    brotli += brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length
  }
  return { files: files.length, raw, gzip, brotli }
}

/** One line for people: the weight in kB (1,000 bytes) and against the budget. */
export function describeFirstLoad({ files, raw, gzip, brotli }) {
  const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`
  const verdict = gzip <= FIRST_LOAD_JS_BUDGET_GZIP_BYTES ? 'within' : 'OVER'
  return `first-load JavaScript (home, ${files} files): ${kb(raw)} raw, ${kb(gzip)} gzip, ${kb(brotli)} brotli; ${verdict} the budget of ${kb(FIRST_LOAD_JS_BUDGET_GZIP_BYTES)} gzip`
}
