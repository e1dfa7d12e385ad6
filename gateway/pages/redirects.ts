import type { FastifyBaseLogger } from 'fastify'
import type { UpstreamAnswer } from '../craft/client.ts'
import type { ContentService, RunContext } from '../craft/content-service.ts'
import { UpstreamBadResponseError } from '../errors.ts'
import type { RedirectRule } from '../../shared/build-meta.ts'
import { ConfigError } from '../../shared/errors.ts'

const STATUS_CODES = new Set([301, 302])
const SITE_PATH = /^\/(?![/\\])[^\s?#]*$/

/** A redirect target: a site path, or an absolute http(s) address. */
function validTarget(target: string): boolean {
  if (SITE_PATH.test(target)) return true
  try {
    const url = new URL(target)
    return url.protocol === 'https:' || url.protocol === 'http:'
  } catch {
    return false
  }
}

function toRule(from: unknown, to: unknown, statusCode: unknown): RedirectRule | undefined {
  if (typeof from !== 'string' || typeof to !== 'string' || !SITE_PATH.test(from) || !validTarget(to)) return undefined
  const code = Number(statusCode ?? 301)
  return { from, to, statusCode: (STATUS_CODES.has(code) ? code : 301) as 301 | 302 }
}

/** Redirect rules from the REDIRECTS setting (a JSON list of {from, to, statusCode}). */
export function parseRedirects(json: string | undefined): RedirectRule[] {
  if (json === undefined) return []
  let list: unknown
  try {
    list = JSON.parse(json)
  } catch {
    throw new ConfigError('REDIRECTS is not valid JSON')
  }
  if (!Array.isArray(list)) throw new ConfigError('REDIRECTS must be a JSON list')
  return list.map((item: { from?: unknown; to?: unknown; statusCode?: unknown }, index) => {
    const rule = toRule(item?.from, item?.to, item?.statusCode)
    if (!rule) throw new ConfigError(`REDIRECTS[${index}] needs "from" (a path) and "to" (a path or http(s) URL)`)
    return rule
  })
}

interface RedirectEntry {
  redirectSrcUrl?: unknown
  redirectDestUrl?: unknown
  redirectHttpCode?: unknown
}

/**
 * The redirect rules of configuration and of the CMS (Retour-style entries
 * of the `redirects` section, fetched through the cache). Targets come only
 * from there, never from the request, so nothing redirects where a visitor
 * says.
 */
/** What `Redirects.matchAtOnce` answers when it cannot decide without asking the cache: the caller waits for `match`. */
export const UNDECIDED: unique symbol = Symbol('undecided')

export class Redirects {
  /** The key of the live rules' answer in the pages' cache, under the documents' generation it was made for. */
  private liveKey: { key: string; generation: number } | undefined
  private lastAnswer: UpstreamAnswer | undefined
  private fromCms: RedirectRule[] = []
  /** The live rules by path (configured first), made again when the CMS's answer changes. */
  private byPath: Map<string, RedirectRule> | undefined

  constructor(
    private readonly configured: readonly RedirectRule[],
    private readonly content: ContentService,
    private readonly site: string,
    private readonly siteToken: string | undefined,
    private readonly log: FastifyBaseLogger,
  ) {}

  /**
   * The rules as a request sees them: in a preview, asked with the request's
   * token (so drafts count and every call of the render carries it) and kept
   * for that request only.
   */
  async rules(context: RunContext = { token: this.siteToken, preview: false }, log: FastifyBaseLogger = this.log): Promise<RedirectRule[]> {
    try {
      const { answer } = await this.content.runNamed('Redirects', { site: this.site }, context)
      if (answer.status < 200 || answer.status >= 300 || !answer.body.data) throw new UpstreamBadResponseError()
      if (context.preview) return [...this.configured, ...rulesOf(answer)]
      if (answer !== this.lastAnswer) {
        this.lastAnswer = answer
        this.fromCms = rulesOf(answer)
        this.byPath = undefined
      }
    } catch (error) {
      // A schema that refuses the redirects was logged once when it was found; not again on every page.
      if ((error as { code?: string }).code !== 'UPSTREAM_SCHEMA_MISMATCH') log.warn({ err: error }, 'redirects from the CMS unavailable; using the last known ones')
    }
    return [...this.configured, ...this.fromCms]
  }

  /**
   * The live rule for a path, decided at once while the CMS's rules last used
   * are still the fresh answer of the pages' cache (counted as the hit
   * `match` would count); UNDECIDED otherwise. Spares every live page the
   * wait `match` costs even when its answer is cached.
   */
  matchAtOnce(path: string): RedirectRule | undefined | typeof UNDECIDED {
    const { lastAnswer, byPath } = this
    if (!lastAnswer || !byPath) return UNDECIDED
    const generation = this.content.generation
    if (this.liveKey?.generation !== generation) {
      const key = this.content.cacheKeyOf('Redirects', { site: this.site })
      if (key === undefined) return UNDECIDED
      this.liveKey = { key, generation }
    }
    return this.content.stillFresh([this.liveKey.key], [lastAnswer], generation) ? byPath.get(path) : UNDECIDED
  }

  async match(path: string, context?: RunContext, log?: FastifyBaseLogger): Promise<RedirectRule | undefined> {
    const rules = await this.rules(context, log)
    if (context?.preview) return rules.find((rule) => rule.from === path)
    if (!this.byPath) {
      this.byPath = new Map()
      // The first rule for a path wins, as a search through the list would find it.
      for (const rule of rules) if (!this.byPath.has(rule.from)) this.byPath.set(rule.from, rule)
    }
    return this.byPath.get(path)
  }
}

function rulesOf(answer: UpstreamAnswer): RedirectRule[] {
  const entries = (answer.body.data?.entries ?? []) as RedirectEntry[]
  return entries.flatMap((entry) => toRule(entry.redirectSrcUrl, entry.redirectDestUrl, entry.redirectHttpCode) ?? [])
}
