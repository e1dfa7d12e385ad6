import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { BuildMeta, RedirectRule } from '../../../shared/build-meta.ts'

declare module 'fastify' {
  interface FastifyInstance {
    build: BuildInfo
  }
}

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
function loadBuildInfo(distDir: string, configuredId: string | undefined, redirects: () => Promise<RedirectRule[]>): BuildInfo {
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

/** Which build is live (routes/builds.ts tells the browser), with the redirect rules it may apply itself. */
async function buildInfo(app: FastifyInstance): Promise<void> {
  const { config, redirects } = app
  app.decorate('build', loadBuildInfo(config.distDir, config.buildId, () => redirects.rules()))
}

export default fp(buildInfo, { name: 'build-info', dependencies: ['config', 'redirects'] })
