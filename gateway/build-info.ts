import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BuildMeta, RedirectRule } from '../shared/build-meta.ts'

export interface BuildManifest {
  id: string
  timestamp: number
  /** Entry script and styles of the client bundle, by logical name. */
  assets: Record<string, string>
}

export interface BuildInfo {
  id: string
  timestamp: number
  assets: Record<string, string>
  meta(): Promise<BuildMeta>
}

/** The build's identity from dist/build.json (written by the build), or one made for this process. */
export function loadBuildInfo(distDir: string, configuredId: string | undefined, redirects: () => Promise<RedirectRule[]>): BuildInfo {
  const file = join(distDir, 'build.json')
  const manifest: BuildManifest = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as BuildManifest)
    : { id: randomBytes(6).toString('hex'), timestamp: Date.now(), assets: {} }
  const id = configuredId ?? manifest.id
  return {
    id,
    timestamp: manifest.timestamp,
    assets: manifest.assets,
    meta: async () => ({ id, timestamp: manifest.timestamp, matchers: { redirects: await redirects(), prerendered: [] } }),
  }
}
