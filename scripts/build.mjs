// Builds everything `npm start` and the containers run: both servers bundled
// for Node, content-hashed static assets, and dist/build.json naming the build.
import { randomBytes } from 'node:crypto'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'
import { ROOT, clientBuildOptions, serverBuildOptions, writeAssets } from './build-steps.mjs'

const dist = join(ROOT, 'dist')
rmSync(dist, { recursive: true, force: true })
mkdirSync(join(dist, 'client'), { recursive: true })

await build(serverBuildOptions(['gateway', 'renderer'], { dev: false, outdir: dist }))
const client = await build(clientBuildOptions({ dev: false, outdir: join(dist, 'client') }))
const id = process.env.BUILD_ID || `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`
writeAssets(dist, client.metafile, { id, compress: true, minify: true })
console.log(`built ${id}`)
