// Builds everything `npm start` and the containers run: both servers bundled
// for Node, content-hashed static assets, and dist/build.json naming the build.
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
rmSync(dist, { recursive: true, force: true })
mkdirSync(join(dist, 'client'), { recursive: true })

// React goes into the server bundle, built for production: left external it
// would pick its development build at run time, at a third of the speed.
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const bundledIntoServer = new Set(['react', 'react-dom', 'react-router-dom'])
await build({
  entryPoints: { gateway: join(root, 'gateway/server.ts'), renderer: join(root, 'renderer/server.ts') },
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: Object.keys(pkg.dependencies).filter((name) => !bundledIntoServer.has(name)),
  define: { 'process.env.NODE_ENV': '"production"' },
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  jsx: 'automatic',
  sourcemap: true,
  logLevel: 'warning',
})

const hashed = (name, content) => {
  const hash = createHash('sha256').update(content).digest('hex').slice(0, 10)
  const dot = name.lastIndexOf('.')
  const file = `${name.slice(0, dot)}-${hash}${name.slice(dot)}`
  writeFileSync(join(dist, 'client', file), content)
  return `/assets/${file}`
}

// The browser bundle: minified ES modules, one chunk per screen, content-hashed names.
const client = await build({
  entryPoints: { app: join(root, 'renderer/client/entry.tsx') },
  outdir: join(dist, 'client'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  minify: true,
  jsx: 'automatic',
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
})
const entry = Object.entries(client.metafile.outputs).find(([, output]) => output.entryPoint?.endsWith('renderer/client/entry.tsx'))
if (!entry) throw new Error('the client entry was not built')
writeFileSync(join(dist, 'client-meta.json'), JSON.stringify(client.metafile))

const assets = {
  stylesheet: hashed('styles.css', readFileSync(join(root, 'public/styles.css'))),
  client: `/assets/${entry[0].split('/').pop()}`,
}
// Every file of the browser bundle also as .br and .gz, so the gateway never compresses them per request.
for (const name of readdirSync(join(dist, 'client'))) {
  if (!/\.(js|css)$/.test(name)) continue
  const bytes = readFileSync(join(dist, 'client', name))
  writeFileSync(join(dist, 'client', `${name}.br`), brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }))
  writeFileSync(join(dist, 'client', `${name}.gz`), gzipSync(bytes, { level: 9 }))
}

const id = process.env.BUILD_ID || `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`
writeFileSync(join(dist, 'build.json'), JSON.stringify({ id, timestamp: Date.now(), assets }, null, 2))
console.log(`built ${id}`)
