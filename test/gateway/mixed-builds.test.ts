import { cpSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { startSystem } from '../helpers/system.ts'

/**
 * A gateway and a renderer of different builds, as during a roll or after one service was rolled back: every
 * file of the client bundle a page names answers 200 through the gateway, both ways round, and /readyz and
 * /metrics name both builds.
 */
const built = loadGatewayConfig({}).distDir

/** Another build: the same bundle under other content hashes (every file renamed, every mention of it too), another id. */
function otherBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'other-build-'))
  cpSync(built, dir, { recursive: true })
  const client = join(dir, 'client')
  // Precompressed copies would keep the old bytes: the renamed files are served as they are.
  for (const name of readdirSync(client)) if (name.endsWith('.br') || name.endsWith('.gz')) rmSync(join(client, name))
  // Each hash in its own alphabet (esbuild's base32, the stylesheet's hex), as a build names its files: the gateway asks the renderers for nothing else.
  const shifted = (hash: string, alphabet: string): string => hash.replace(/./g, (char) => alphabet[(alphabet.indexOf(char) + 1) % alphabet.length] as string)
  const renames = readdirSync(client).map(
    (name) => [name, name.replace(/-([A-Za-z0-9]+)\./, (_, hash: string) => `-${shifted(hash, /^[0-9a-f]{10}$/.test(hash) ? '0123456789abcdef' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}.`)] as const,
  )
  const rewrite = (file: string): void => {
    let text = readFileSync(file, 'utf8')
    for (const [from, to] of renames) text = text.replaceAll(from, to)
    writeFileSync(file, text)
  }
  for (const name of readdirSync(client)) rewrite(join(client, name))
  for (const [from, to] of renames) renameSync(join(client, from), join(client, to))
  for (const name of ['build.json', 'client-meta.json']) rewrite(join(dir, name))
  const manifest = JSON.parse(readFileSync(join(dir, 'build.json'), 'utf8')) as { id: string }
  writeFileSync(join(dir, 'build.json'), JSON.stringify({ ...manifest, id: `${manifest.id}-other` }))
  return dir
}

const other = otherBuild()
t.teardown(() => rmSync(other, { recursive: true, force: true }))
const ownId = (JSON.parse(readFileSync(join(built, 'build.json'), 'utf8')) as { id: string }).id

/** The files of the client bundle a page names: scripts, module preloads, stylesheets. */
const namedAssets = (html: string): string[] => [...new Set([...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] as string))]

for (const [gatewayDist, rendererDist, label] of [
  [built, other, 'a gateway of the old build, a renderer of the new'],
  [other, built, 'a gateway of the new build, a renderer of the old'],
] as const) {
  t.test(`${label}: every asset a page names answers 200`, async (t) => {
    const system = await startSystem({ DIST_DIR: rendererDist, RENDERER_PROBE_INTERVAL_MS: '100' }, (config) => {
      config.distDir = gatewayDist
    })
    t.teardown(() => system.close())
    const html = await (await request(`${system.url}/over-ons`)).body.text()
    const assets = namedAssets(html)
    t.ok(assets.length >= 2, `the page names its bundle (${assets.length} files)`)
    const ownFiles = new Set(readdirSync(join(gatewayDist, 'client')))
    t.ok(
      assets.some((path) => !ownFiles.has(path.slice('/assets/'.length))),
      "files the gateway's own build lacks",
    )
    for (const path of assets) {
      const response = await request(`${system.url}${path}`)
      const body = await response.body.text()
      t.equal(response.statusCode, 200, `${path}: 200`)
      t.ok(body.length > 0, `${path}: its bytes`)
      t.match(String(response.headers['cache-control']), /immutable/, `${path}: immutable`)
    }
    const unknown = await request(`${system.url}/assets/app-NOSUCHFILE.js`)
    await unknown.body.dump()
    t.equal(unknown.statusCode, 404, 'a file no build has: 404')

    // The renderer's build comes with its health check (every 100 ms here).
    const renderersBuild = rendererDist === built ? ownId : `${ownId}-other`
    let ready: { builds?: { gateway: string; renderers: Record<string, number>; mixed: boolean } } = {}
    for (let i = 0; i < 200 && !ready.builds?.renderers[renderersBuild]; i++) {
      ready = (await (await request(`${system.internalUrl}/readyz`)).body.json()) as typeof ready
      if (!ready.builds?.renderers[renderersBuild]) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    t.same(ready.builds, { gateway: gatewayDist === built ? ownId : `${ownId}-other`, renderers: { [renderersBuild]: 1 }, mixed: true }, '/readyz names both builds')
    const metrics = await (await request(`${system.internalUrl}/metrics`)).body.text()
    t.match(metrics, new RegExp(`^builds_in_service\\{[^}]*role="renderer"[^}]*build="${renderersBuild}"[^}]*\\} 1$`, 'm'), 'and /metrics')
  })
}
