import type { FastifyInstance, FastifyReply } from 'fastify'
import { LRUCache } from 'lru-cache'
import { counter } from '../../shared/metrics.ts'
import type { BuildAsset } from '../renderers/renderer-pool.ts'

/** A client-bundle file's name as the build writes them (`app-WFL2RMWP.js`, `styles-bd32cbece6.css`, their maps): nothing else is asked of the renderers. */
const BUNDLE_FILE = /^\/assets\/[A-Za-z0-9_-]{1,80}\.(?:js|css|map|js\.map|css\.map)$/
/** Files of other builds kept in memory at most, in bytes: a build's bundle is well under 1 MB. */
const KEPT_BYTES = 16 * 1024 * 1024
/** A file no renderer had is not asked for again for this long: a client asking for made-up names costs one round per name and interval. */
const MISSING_MS = 10_000

/**
 * /assets/ files this gateway's build lacks: a page written by a renderer of
 * another build (a roll in progress, one service rolled back) names that
 * build's files. Each renderer serves its own build's bundle, so the file is
 * taken from the renderers, kept (content-hashed files never change) and
 * served as the gateway's own are. Files of its own build never get here:
 * @fastify/static has a route for each (in development, every /assets/ path).
 * For the catch-all route: undefined when no renderer has the file (or it is
 * no bundle file's name), and the path is answered as any other (404 page).
 */
export function foreignAssets(app: FastifyInstance): (path: string, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  const kept = new LRUCache<string, BuildAsset>({ maxSize: KEPT_BYTES, sizeCalculation: (asset) => asset.body.length + 1 })
  const missing = new LRUCache<string, true>({ max: 10_000, ttl: MISSING_MS })
  const fetching = new Map<string, Promise<BuildAsset | undefined>>()
  const fromRenderers = counter(app.metrics.registry, 'foreign_assets_total', "Client-bundle files of another build asked of this gateway, by result (kept, fetched from a renderer, missing)", ['result'])

  return async (path, reply) => {
    if (!BUNDLE_FILE.test(path)) return undefined
    if (missing.has(path)) {
      fromRenderers.inc({ result: 'missing' })
      return undefined
    }
    let asset = kept.get(path)
    if (asset) fromRenderers.inc({ result: 'kept' })
    else {
      // One fetch per file however many ask at once.
      let flight = fetching.get(path)
      if (!flight) {
        flight = app.renderers.fetchAsset(path).finally(() => fetching.delete(path))
        fetching.set(path, flight)
      }
      asset = await flight
      if (!asset) {
        missing.set(path, true)
        fromRenderers.inc({ result: 'missing' })
        return undefined
      }
      kept.set(path, asset)
      fromRenderers.inc({ result: 'fetched' })
    }
    return reply.header('cache-control', 'public, max-age=31536000, immutable').type(asset.contentType).send(asset.body)
  }
}
