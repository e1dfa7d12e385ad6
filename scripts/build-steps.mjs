// What `npm run build` (scripts/build.mjs) and `npm run dev` (scripts/dev.mjs)
// both do: the esbuild options of the two servers and of the browser bundle,
// and the manifest that names the built assets.
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import { transformSync } from 'esbuild'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
/** Each service's entry, built to dist/<name>.js (the containers and scripts run those names). */
const SERVER_ENTRIES = { gateway: 'gateway/server.ts', renderer: 'renderer/server/server.ts' }
const CLIENT_ENTRY = 'renderer/client/entry.tsx'
/** Craft's live preview's own entry (iframe-resizer's child, the kept scroll position): named by a page only in live preview. */
const LIVE_PREVIEW_ENTRY = 'renderer/client/live-preview.ts'
const BROWSERS = ['chrome100', 'firefox100', 'safari15']

const mode = (dev) => (dev ? '"development"' : '"production"')

/**
 * The servers bundled for Node, `services` being 'gateway' and/or 'renderer'.
 * React goes into the production bundle, built for production: left external
 * it would pick its development build at run time, at a third of the speed.
 * In dev every package stays external, so a rebuild is only the project's own code.
 */
export function serverBuildOptions(services, { dev, outdir }) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  // react-router-dom goes in with React: left external, its hooks would call a second copy of React.
  const bundledIntoServer = new Set(['react', 'react-dom', 'react-router-dom'])
  return {
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(services.map((name) => [name, join(ROOT, SERVER_ENTRIES[name])])),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    ...(dev ? { packages: 'external' } : { external: Object.keys(pkg.dependencies).filter((name) => !bundledIntoServer.has(name)) }),
    define: { 'process.env.NODE_ENV': mode(dev) },
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    jsx: 'automatic',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
  }
}

/**
 * V8's compile hint (Chrome 136 on): compile every function of the file while
 * it downloads, off the main thread, instead of on first call. The entry is
 * nearly all React DOM, and hydration calls most of it at once: without the
 * hint, compiling it is a long task of its own on the main thread.
 */
const COMPILE_EAGERLY = '//# allFunctionsCalledOnLoad'

/**
 * The browser bundle: ES modules, one chunk per screen, content-hashed names;
 * minified and compiled eagerly for production. `__DEV_RELOAD__` is true only
 * in dev, so the production bundle has no trace of the dev reload.
 */
export function clientBuildOptions({ dev, outdir }) {
  return {
    absWorkingDir: ROOT,
    entryPoints: { app: join(ROOT, CLIENT_ENTRY), 'live-preview': join(ROOT, LIVE_PREVIEW_ENTRY) },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020', ...BROWSERS],
    minify: !dev,
    sourcemap: dev,
    jsx: 'automatic',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    define: { 'process.env.NODE_ENV': mode(dev), __DEV_RELOAD__: String(dev) },
    legalComments: 'none',
    ...(dev ? {} : { banner: { js: COMPILE_EAGERLY } }),
    metafile: true,
    logLevel: 'warning',
    plugins: [treeShakenReactRouter],
  }
}

/**
 * react-router ships one module for all its modes, and esbuild keeps what its
 * top level does: a `X.displayName = "X"` line (names for React's developer
 * tools) keeps X, and each `React.createContext()`, `forwardRef()` or `memo()`
 * call, which esbuild cannot know has no side effect, keeps its value. So the
 * few components and hooks the app uses brought in the data router, forms,
 * fetchers and scroll restoration too. Read without those lines, and with
 * those calls marked pure, the bundle keeps only what the app reaches: 2.5 KB
 * gzip less on a first visit (docs/performance.md). Nothing else changes: an
 * unused value is all that goes, and the names only ever show in developer tools.
 */
const treeShakenReactRouter = {
  name: 'tree-shaken-react-router',
  setup(build) {
    build.onLoad({ filter: /[\\/]react-router[\\/]dist[\\/].*\.mjs$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8')
        .replace(/^\w+\.displayName = "\w+";$/gm, '')
        .replace(/^(var \w+ = )(React\d*\.(?:createContext|forwardRef|memo)\()/gm, '$1/* @__PURE__ */ $2'),
      loader: 'js',
    }))
  },
}

/**
 * Next to the built client in `outdir/client`: the hashed stylesheet from
 * public/, client-meta.json (the renderer's module preloads) and build.json
 * naming the build and its assets. `compress`: every .js and .css also as .br
 * and .gz, so the gateway never compresses them per request. `minify`: the
 * stylesheet minified, as the renderer inlines it into every page's head.
 */
export function writeAssets(outdir, clientMetafile, { id, compress, minify = false }) {
  const clientDir = join(outdir, 'client')
  const entry = Object.entries(clientMetafile.outputs).find(([, output]) => output.entryPoint?.endsWith(CLIENT_ENTRY))
  if (!entry) throw new Error('the client entry was not built')
  const livePreview = Object.entries(clientMetafile.outputs).find(([, output]) => output.entryPoint?.endsWith(LIVE_PREVIEW_ENTRY))
  if (!livePreview) throw new Error('the live preview entry was not built')
  writeFileSync(join(outdir, 'client-meta.json'), JSON.stringify(clientMetafile))

  const source = readFileSync(join(ROOT, 'public/styles.css'), 'utf8')
  const styles = minify ? transformSync(source, { loader: 'css', minify: true, target: BROWSERS, logLevel: 'warning' }).code : source
  const stylesheet = `styles-${createHash('sha256').update(styles).digest('hex').slice(0, 10)}.css`
  writeFileSync(join(clientDir, stylesheet), styles)
  const assets = { stylesheet: `/assets/${stylesheet}`, client: `/assets/${entry[0].split('/').pop()}`, livePreview: `/assets/${livePreview[0].split('/').pop()}` }

  if (compress) {
    for (const name of readdirSync(clientDir)) {
      if (!/\.(js|css)$/.test(name)) continue
      const bytes = readFileSync(join(clientDir, name))
      writeFileSync(join(clientDir, `${name}.br`), brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }))
      writeFileSync(join(clientDir, `${name}.gz`), gzipSync(bytes, { level: 9 }))
    }
  }
  writeFileSync(join(outdir, 'build.json'), JSON.stringify({ id, timestamp: Date.now(), assets }, null, 2))
  return assets
}
