import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Gauge } from 'prom-client'
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
  const build = loadBuildInfo(config.distDir, config.buildId, () => redirects.rules())
  app.decorate('build', build)
  // A mixed stack is visible: this gateway's build, and those its renderers said at their last health check.
  new Gauge({
    name: 'builds_in_service',
    help: "Builds in service as this gateway sees them: its own (role=gateway, 1) and its renderers' that are up, by build (role=renderer, how many)",
    labelNames: ['role', 'build'] as const,
    registers: [app.metrics.registry],
    collect() {
      this.reset()
      this.set({ role: 'gateway', build: build.id }, 1)
      for (const [id, count] of rendererBuilds(app)) this.set({ role: 'renderer', build: id }, count)
    },
  })
}

/** The builds of the renderers up now, with how many run each ('unknown' for one that did not say). */
export function rendererBuilds(app: FastifyInstance): Map<string, number> {
  const builds = new Map<string, number>()
  for (const member of app.renderers.list()) if (member.up) builds.set(member.build ?? 'unknown', (builds.get(member.build ?? 'unknown') ?? 0) + 1)
  return builds
}

export default fp(buildInfo, { name: 'build-info', dependencies: ['config', 'redirects', 'metrics', 'renderers'] })
