import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'
import { API_PATH } from '../../shared/constants.ts'
import { counter } from '../../shared/metrics.ts'
import { TAG_PATTERN } from '../cache/cache-tags.ts'
import { purgeLocally } from '../cache/purge-locally.ts'
import { type SavedEntry, neighbourTags, parseSavedEntry, savePurgePlan } from '../cache/save-purge.ts'
import { BadRequestError, PurgeLockedError, PurgeSecretError } from '../errors.ts'

export const PURGE_PATH = `${API_PATH}/purge`
export const PURGE_SECRET_HEADER = 'x-purge-secret'

function sameSecret(given: unknown, secret: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** How many addresses' failures are remembered at once, so the counter's memory is bounded however many addresses guess. */
const FAILING_ADDRESSES_MAX = 10_000

/**
 * Failed purges (a wrong or missing secret) per client address, in a window
 * that starts at its first failure. Successes never count.
 */
class PurgeFailures {
  private readonly failures: LRUCache<string, number>

  constructor(
    private readonly max: number,
    windowMs: number,
  ) {
    this.failures = new LRUCache({ max: FAILING_ADDRESSES_MAX, ttl: windowMs, noUpdateTTL: true })
  }

  /** Seconds until the address may try again; 0 while it may. */
  lockedFor(address: string): number {
    if ((this.failures.get(address) ?? 0) < this.max) return 0
    return Math.max(1, Math.ceil(this.failures.getRemainingTTL(address) / 1000))
  }

  fail(address: string): void {
    this.failures.set(address, (this.failures.get(address) ?? 0) + 1)
  }
}

/** What a save purges (save-purge.ts), the neighbours of a new place asked of the CMS; undefined neighbours when it could not answer. */
async function tagsOfSave(app: FastifyInstance, request: FastifyRequest, saved: SavedEntry): Promise<{ tags: string[]; neighbours?: string[] | 'failed'; lists?: string }> {
  const plan = savePurgePlan(saved, app.content.knownEntries.get(saved.id))
  if (plan.neighboursAt === undefined) return { tags: plan.tags, ...(plan.listsBecause ? { lists: plan.listsBecause } : {}) }
  const around = { section: [saved.section], site: [app.config.siteHandle], newer: [`>= ${plan.neighboursAt}`], older: [`< ${plan.neighboursAt}`] }
  try {
    const { answer } = await app.content.runNamed('EntriesAround', around, { token: app.config.craftToken, preview: false, requestId: request.id })
    const neighbours = neighbourTags(answer.body.data, saved.id)
    return { tags: [...plan.tags, ...neighbours], neighbours, lists: plan.listsBecause }
  } catch (error) {
    // The entry's own pages and its section's lists are purged all the same; its new neighbours' pages age out.
    request.log.warn({ err: error, entry: saved.id }, 'the entries next to a saved entry could not be asked for: their pages are not purged')
    return { tags: plan.tags, neighbours: 'failed', lists: plan.listsBecause }
  }
}

const PURGE_KEYS: ReadonlySet<string> = new Set(['sections', 'tags', 'entry', 'hard'])

const isTagList = (value: unknown): value is string[] => Array.isArray(value) && value.every((tag) => typeof tag === 'string' && TAG_PATTERN.test(tag))

/**
 * POST /api/purge: for Craft's webhook on entry save. Marks stale (a soft
 * purge) or, with `"hard": true`, empties the caches, or only the entries
 * and pages built from the given sections or tags (the tags of the CDN
 * headers: section handles and `entry:<id>`). With a shared
 * tier, Redis loses them too and every other gateway is told. Absent unless
 * PURGE_SECRET is set.
 *
 * Only failures are limited, so guessing from elsewhere never locks out the
 * real webhook. An address that failed PURGE_RATE_LIMIT times in the window
 * gets 429 even with the right secret: were the secret compared first, the
 * answer would tell a right guess from a wrong one and guessing could go on.
 */
export async function purgeRoutes(app: FastifyInstance): Promise<void> {
  const secret = app.config.purgeSecret
  if (!secret) return
  const failures = new PurgeFailures(app.config.rateLimit.purgeMax, app.config.rateLimit.windowMs)
  const missed = counter(
    app.metrics.registry,
    'purges_missed_in_redis_total',
    'Purges that dropped nothing in Redis while this gateway\'s memory held entries or pages they named (a sign of lost tag sets)',
    [],
  )
  // Before the body is read: a refused caller costs no parsing.
  const checkSecret = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const lockedFor = failures.lockedFor(request.client)
    if (lockedFor > 0) {
      reply.header('retry-after', String(lockedFor))
      throw new PurgeLockedError(lockedFor)
    }
    if (!sameSecret(request.headers[PURGE_SECRET_HEADER], secret)) {
      failures.fail(request.client)
      throw new PurgeSecretError()
    }
  }
  app.post(PURGE_PATH, { onRequest: checkSecret }, async (request) => {
    // No body purges everything; a JSON `null` is a mistake, not a request for that.
    const body = (request.body === undefined ? {} : request.body) as { sections?: unknown; tags?: unknown; hard?: unknown; entry?: unknown } | null
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('The body must be a JSON object')
    // A mistyped key (`"tag"`, `"entries"`) would otherwise be no key, and no key purges everything.
    const unknown = Object.keys(body).find((key) => !PURGE_KEYS.has(key))
    if (unknown !== undefined) throw new BadRequestError(`Unknown key ${JSON.stringify(unknown.slice(0, 40))}: a purge names sections, tags, entry and hard`)
    const { sections, tags, hard } = body
    const saved = body.entry === undefined ? undefined : parseSavedEntry(body.entry)
    if (sections !== undefined && !isTagList(sections)) throw new BadRequestError('sections must be a list of section handles')
    if (tags !== undefined && !isTagList(tags)) throw new BadRequestError('tags must be a list of tags such as "jobs" or "entry:123"')
    if (hard !== undefined && typeof hard !== 'boolean') throw new BadRequestError('hard must be true or false')
    // Soft unless asked: stored pages and answers are marked stale, each page rendered again by one request while the others get it (docs/caching.md).
    const soft = hard !== true
    const save = saved ? await tagsOfSave(app, request, saved) : undefined
    const named = sections === undefined && tags === undefined && !save ? undefined : [...new Set([...(sections ?? []), ...(tags ?? []), ...(save?.tags ?? [])])]
    const { purged, pages } = purgeLocally(app, named, soft)
    const fromRedis = app.sharedCache ? await app.sharedCache.purge(named, soft) : undefined
    const shared = fromRedis?.fanOut ?? 'off'
    if (shared === 'pending') request.log.warn('redis unreachable: other gateways are told when it is back')
    // Memory held what the purge names, Redis nothing: its tag sets were lost, and what Redis still holds may come back.
    const sharedMissed = fromRedis?.dropped === 0 && purged + pages > 0
    if (sharedMissed) {
      missed.inc()
      request.log.warn({ tags: named ?? 'all', purged, pages }, 'purge found nothing in redis while memory held entries')
    }
    request.log.info({ tags: named ?? 'all', purged, pages, shared, hard: !soft, sharedDropped: fromRedis?.dropped ?? null, lists: save?.lists ?? null }, 'cache purged')
    const entry = saved && save ? { id: saved.id, tags: save.tags, lists: save.lists ?? null, neighbours: save.neighbours ?? null } : null
    return { purged, pages, sections: sections ?? null, tags: tags ?? null, entry, hard: !soft, shared, sharedDropped: fromRedis?.dropped ?? null, sharedMissed }
  })
}
