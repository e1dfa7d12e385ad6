// Builds everything `npm start` and the containers run: both servers bundled
// for Node, content-hashed static assets, and dist/build.json naming the build.
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
rmSync(dist, { recursive: true, force: true })
mkdirSync(join(dist, 'client'), { recursive: true })

await build({
  entryPoints: { gateway: join(root, 'gateway/server.ts'), renderer: join(root, 'renderer/server.ts') },
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
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

const assets = { stylesheet: hashed('styles.css', readFileSync(join(root, 'public/styles.css'))) }
const id = process.env.BUILD_ID || `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`
writeFileSync(join(dist, 'build.json'), JSON.stringify({ id, timestamp: Date.now(), assets }, null, 2))
console.log(`built ${id}`)
