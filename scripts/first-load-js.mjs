// The JavaScript a visitor's browser loads before the home page is
// interactive, as built in dist/: the entry, every chunk it imports
// statically, and the home screen's chunk with its static imports (the
// modules the page preloads; renderer/module-preloads.ts). Each file
// compressed on its own, as it is served (gzip level 9, brotli quality 11).
// `npm run bench` prints it; `npm run bench -- --js` prints only it.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'

/** Issue 15's budget for the first load: at most 90 KB (90,000 bytes) gzip. */
export const FIRST_LOAD_JS_BUDGET_GZIP_BYTES = 90_000

/** `start` and every chunk it imports statically, directly or through another chunk. */
function withStaticImports(outputs, start) {
  const files = new Set([start])
  const visit = (path) => {
    for (const item of outputs[path]?.imports ?? []) {
      if (item.kind !== 'import-statement' || files.has(item.path)) continue
      files.add(item.path)
      visit(item.path)
    }
  }
  visit(start)
  return files
}

/** The first load of the build in `root`/dist: how many files, their bytes raw and compressed. */
export function firstLoadJavaScript(root) {
  const build = JSON.parse(readFileSync(join(root, 'dist/build.json'), 'utf8'))
  const { outputs } = JSON.parse(readFileSync(join(root, 'dist/client-meta.json'), 'utf8'))
  const entry = `dist/client/${build.assets.client.split('/').pop()}`
  const files = withStaticImports(outputs, entry)
  const home = Object.entries(outputs).find(([, output]) => output.entryPoint?.endsWith('screens/home-screen.tsx'))
  if (home) for (const file of withStaticImports(outputs, home[0])) files.add(file)
  let raw = 0
  let gzip = 0
  let brotli = 0
  for (const file of files) {
    const bytes = readFileSync(join(root, file))
    raw += bytes.length
    gzip += gzipSync(bytes, { level: 9 }).length
    brotli += brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length
  }
  return { files: files.size, raw, gzip, brotli }
}

/** One line for people: the weight in kB (1,000 bytes) and against the budget. */
export function describeFirstLoad({ files, raw, gzip, brotli }) {
  const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`
  const verdict = gzip <= FIRST_LOAD_JS_BUDGET_GZIP_BYTES ? 'within' : 'OVER'
  return `first-load JavaScript (home, ${files} files): ${kb(raw)} raw, ${kb(gzip)} gzip, ${kb(brotli)} brotli; ${verdict} the budget of ${kb(FIRST_LOAD_JS_BUDGET_GZIP_BYTES)} gzip`
}
