import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'
import { counter } from '../../shared/metrics.ts'
import { overBudget } from '../admission/admission.ts'
import { ConcurrencyGate } from '../admission/concurrency-gate.ts'
import { RendererBusyError } from '../errors.ts'
import type { BuildAsset } from '../renderers/renderer-pool.ts'

/**
 * A client-bundle file's name as the build gives them (scripts/build-steps.mjs):
 * an entry or chunk with esbuild's hash, eight characters of base32
 * (`app-WFL2RMWP.js`, `chunk-2RENHKO5.js`), or the stylesheet with ten hex
 * digits of its digest (`styles-bd32cbece6.css`). Nothing else can be a
 * file of another build, and nothing else is asked of the renderers.
 */
const BUNDLE_FILE = /^\/assets\/(?:[a-z][a-z-]{0,31}-[A-Z2-7]{8}\.js|styles-[0-9a-f]{10}\.css)$/
/** Files of other builds kept in memory at most, in bytes: a build's bundle is well under 1 MB. */
const KEPT_BYTES = 16 * 1024 * 1024
/** A file no renderer had is not asked for again for this long: a client asking for made-up names costs one round per name and interval. */
const MISSING_MS = 10_000
/** Misses remembered at once; the oldest go first. */
const MISSING_MAX = 10_000
/**
 * Rounds of questions to the renderers at once, for all clients together; a
 * few more wait their turn briefly, and past that a request is answered 503
 * (RENDERER_BUSY). A roll's real files are a dozen, asked once each and kept.
 */
const FETCHES_AT_ONCE = 2
const FETCHES_WAITING = 8
const FETCH_WAIT_MS = 2_000

/**
 * /assets/ files this gateway's build lacks: a page written by a renderer of
 * another build (a roll in progress, one service rolled back) names that
 * build's files. Each renderer serves its own build's bundle, so the file is
 * taken from the renderers, kept (content-hashed files never change) and
 * served as the gateway's own are. Files of its own build never get here:
 * @fastify/static has a route for each (in development, every /assets/ path).
 * For the catch-all route: undefined when no renderer has the file (or it is
 * no bundle file's name), and the path is answered as any other (404 page).
 *
 * What a name costs is bounded: one that cannot be a build's file is refused
 * without a question; a round of questions is one unit of the client's work
 * budget (over budget: 429), and at most FETCHES_AT_ONCE rounds run at once.
 */
export function foreignAssets(
  app: FastifyInstance,
  /** The bound of the misses remembered; smaller in a test. */
  missingMax = MISSING_MAX,
): (path: string, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  const kept = new LRUCache<string, BuildAsset>({ maxSize: KEPT_BYTES, sizeCalculation: (asset) => asset.body.length + 1 })
  const missing = new LRUCache<string, true>({ max: missingMax, ttl: MISSING_MS })
  const fetching = new Map<string, Promise<BuildAsset | undefined>>()
  const fromRenderers = counter(app.metrics.registry, 'foreign_assets_total', "Client-bundle files of another build asked of this gateway, by result (kept, fetched from a renderer, missing, busy: refused while the renderers' rounds were full)", ['result'])
  const rounds = new ConcurrencyGate({
    limit: () => FETCHES_AT_ONCE,
    queueMs: FETCH_WAIT_MS,
    queueLength: FETCHES_WAITING,
    refusal: () => new RendererBusyError(),
    onOutcome: (outcome) => outcome === 'refused' && fromRenderers.inc({ result: 'busy' }),
  })

  /** One round of questions per file however many ask at once; the one who starts it pays for it. */
  const fetched = (path: string, request: FastifyRequest, reply: FastifyReply): Promise<BuildAsset | undefined> => {
    let flight = fetching.get(path)
    if (!flight) {
      const refused = app.admission.budget.take(request.client)
      if (refused !== undefined) throw overBudget(reply, refused)
      flight = rounds.run(() => app.renderers.fetchAsset(path)).finally(() => fetching.delete(path))
      fetching.set(path, flight)
    }
    return flight
  }

  return async (path, request, reply) => {
    if (!BUNDLE_FILE.test(path)) return undefined
    if (missing.has(path)) {
      fromRenderers.inc({ result: 'missing' })
      return undefined
    }
    let asset = kept.get(path)
    if (asset) fromRenderers.inc({ result: 'kept' })
    else {
      asset = await fetched(path, request, reply)
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
