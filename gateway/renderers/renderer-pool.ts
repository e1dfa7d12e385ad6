import { LRUCache } from 'lru-cache'
import { Agent } from 'undici'
import { RENDERER_COMMIT_WINDOW_MS, RENDERER_CONNECT_TIMEOUT_MS } from '../../shared/constants.ts'
import { MAX_RENDER_TAGS_LENGTH, RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION, RenderSigner } from '../../shared/render-protocol/index.ts'
import type { RenderBody } from '../pages/render-body.ts'
import { afterCommitWindow } from './commit-window.ts'
import { GiveUp, type RendererAnswer, discardAnswer, sendRender } from './render-exchange.ts'
import { RenderStalledError, watchStall } from './render-stall.ts'
import { type BuildAsset, checkHealth, fetchBuildAsset, fromRenderer, isClosingAnswer, ofAnotherProtocol } from './renderer-requests.ts'
import { NotARendererError, RenderProtocolMismatchError, RendererDownError, RendererUnavailableError } from '../errors.ts'
import { type LookupAll, lookupAll, needsLookup } from './renderer-addresses.ts'
import { type Member, MemberHealth, type ProbeTimers } from './member-health.ts'
import { type LookupFailure, LookupFailureLog, refreshMembers } from './member-refresh.ts'

/**
 * A render: the whole page when it came with its length or within the commit window, else the stream of it; its
 * trailers (the outcome, the page's tags) once it has ended. Its tags: answerTags (render-exchange.ts).
 */
export type RenderResponse = RendererAnswer

export { type BuildAsset, type ProbeTimers, fromRenderer }

/** Drops a render that will not be sent; undici reports the abort as an error, which is expected here. */
export const discard: (rendered: RenderResponse) => void = discardAnswer

/**
 * The renderer's address for a page: its origin and the page's path, never a
 * URL resolved from the path (`//other.host/x` would leave the renderer).
 */
export function rendererUrl(base: URL, pathWithQuery: string): string {
  if (!pathWithQuery.startsWith('/') || pathWithQuery.startsWith('//')) throw new Error('a page path starts with one slash')
  return `${base.origin}${pathWithQuery}`
}

/** Any origin: a page's path is parsed against it once per render, the same for every member. */
const BASE_FOR_PATHS = new URL('http://renderer.invalid')

/** Paths as undici sends them, by the page's path: a page rendered again is not parsed again. Bounded by their text. */
const sentPaths = new LRUCache<string, string>({ maxSize: 1024 * 1024, sizeCalculation: (path, pathWithQuery) => path.length + pathWithQuery.length + 1 })

function sentPath(pathWithQuery: string): string {
  let path = sentPaths.get(pathWithQuery)
  if (path === undefined) {
    const { pathname, search } = new URL(rendererUrl(BASE_FOR_PATHS, pathWithQuery))
    path = `${pathname}${search}`
    sentPaths.set(pathWithQuery, path)
  }
  return path
}

/** What a kept-alive socket closed by the renderer as it was reused reports; a new connection settles it. */
const KEPT_ALIVE_RESETS = new Set(['ECONNRESET', 'UND_ERR_SOCKET'])

/** The renderer could not be reached: the render is tried on the next member. */
const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET'])
/**
 * The renderer took the request and never answered (hung): it is skipped from
 * now on, but the render is not tried again elsewhere, as the visitor has
 * already waited a whole render timeout.
 */
const UNANSWERED = new Set(['UND_ERR_HEADERS_TIMEOUT'])

export interface RendererPoolOptions {
  /**
   * How often an up member's /healthz is checked, and the longest a down
   * member's probes back off to (from RENDERER_PROBE_BACKOFF_START_MS,
   * doubling); a down member is skipped until a probe passes.
   */
  probeIntervalMs: number
  /** How often host names in RENDERER_URL are resolved again (replicas come and go). */
  dnsRefreshMs: number
  lookup?: LookupAll
  /** RENDER_SECRET: every render request is signed with it; unset = unsigned. */
  renderSecret?: string | undefined
  onMemberChange?: (origin: string, up: boolean, reason: string) => void
  /** Told after each look-up round: the members now, and the look-ups that failed (those URLs keep their last addresses). */
  onRefresh?: (members: PoolMember[], failures: LookupFailure[]) => void
  /** A host name that did not resolve: told at most once per DNS_FAILURE_LOG_INTERVAL_MS per host, so a lasting outage is one line per interval, not one per look-up. */
  onLookupFailed?: (host: string, error: unknown) => void
  /** A renderer answered a render in another protocol version (`said`: the one it named, if any): told on each such answer. */
  onProtocolMismatch?: (origin: string, said: string | undefined) => void
  /** The clock the interval above is measured on (tests move it). */
  now?: () => number
  /** The timers probes are scheduled on (tests fire them). */
  timers?: ProbeTimers
  /** Draws each down member's probe delay within its jitter (0..1). */
  random?: () => number
  /** RENDER_STALL_MS: how long a render waits for its answer before it may go to another renderer or the stored page; undefined: no bound. */
  stallMs?: number
  /** A render stalled on a renderer: what answers it now (`then`). */
  onStall?: (origin: string, then: 'another renderer' | 'the stored page' | 'waited on') => void
  /** A renderer became suspect of a stall (it gets no render while another is up), or its health check cleared it. */
  onSuspect?: (origin: string, suspect: boolean) => void
}

/** What one render may fall back on besides the renderers. */
export interface RenderOptions {
  /**
   * Whether a stored page would answer the visitor if this render failed now: a render that stalls with no other
   * renderer to go to is then given up; else it is waited on.
   */
  standIn?: () => boolean
}

export interface PoolMember {
  origin: string
  host: string
  up: boolean
  /** The build it said it belongs to at its last health check (undefined before one, or from a renderer that does not say). */
  build: string | undefined
  /** Whether it speaks this gateway's render protocol, as its last health check or render said (undefined: not known yet). */
  sameProtocol: boolean | undefined
  /** A render stalled on it (RENDER_STALL_MS) and no health check has passed since: sent renders only when no other is up. */
  suspect: boolean
}

/** An answer the render does not take: it goes to the next member; `error` is what the render fails with if none is left. */
class Skipped {
  constructor(readonly error: Error | undefined) {}
}

/** Up, of this protocol and not suspect: a renderer a stalled render may go to. */
function isRetryTarget(member: Member): boolean {
  return member.up && member.sameProtocol !== false && !member.suspect
}

/**
 * Page renders spread over the renderers round robin on kept-alive
 * connections. A renderer that cannot be reached or is closing is marked down
 * and the render tried on the next one; one that took a render and never
 * answered is marked down too. A down renderer is never sent a render: it is
 * back in turn once a probe (its /healthz, in the background) passes, and its
 * probes back off while it stays down. With no renderer up, a render fails at
 * once, without a connection attempt, so a stored page can stand in at once.
 * A render with no answer within RENDER_STALL_MS (a paused renderer) is given
 * up and sent once to another renderer up, or left to the stored page; the
 * renderer is suspect (last in turn) until its health check, asked at once,
 * passes or marks it down.
 */
export class RendererPool {
  private next = 0
  private readonly agent: Agent
  private members: Member[] = []
  private readonly resolved: Promise<void>
  private readonly timers: NodeJS.Timeout[] = []
  private readonly health: MemberHealth
  private readonly signer: RenderSigner | undefined
  private readonly lookupFailures: LookupFailureLog

  constructor(
    private readonly urls: readonly URL[],
    headersTimeoutMs: number,
    private readonly options: RendererPoolOptions,
  ) {
    // Room for a page's tags in its answer's header or trailer (RENDER_TAGS_HEADER) beside the other headers.
    const maxHeaderSize = 16 * 1024 + MAX_RENDER_TAGS_LENGTH
    this.agent = new Agent({ connect: { timeout: RENDERER_CONNECT_TIMEOUT_MS }, headersTimeout: headersTimeoutMs, bodyTimeout: headersTimeoutMs, keepAliveTimeout: 10_000, maxHeaderSize })
    this.signer = options.renderSecret === undefined ? undefined : new RenderSigner(options.renderSecret)
    this.health = new MemberHealth({
      probeIntervalMs: options.probeIntervalMs,
      ask: (member) => checkHealth(this.agent, member.base, member.host),
      isMember: (member) => this.members.includes(member),
      timers: options.timers,
      random: options.random,
      onMemberChange: options.onMemberChange,
      onSuspect: options.onSuspect,
    })
    this.lookupFailures = new LookupFailureLog(() => (options.now ?? Date.now)(), options.onLookupFailed)
    this.resolved = this.refresh()
    if (urls.some(needsLookup)) this.timers.push(setInterval(() => void this.refresh(), options.dnsRefreshMs))
    for (const timer of this.timers) timer.unref()
  }

  /**
   * Whether every renderer is marked down (none known yet counts as up): a render would fail at once, so a page need
   * not assemble its render request first.
   */
  noneUp(): boolean {
    return this.members.length > 0 && !this.members.some((member) => member.up)
  }

  /** How many renderers are up now, counted without copying the members as list() does (the render slots follow it per render). */
  upCount(): number {
    return this.members.reduce((up, member) => (member.up ? up + 1 : up), 0)
  }

  /** Current members, for logs and tests. */
  list(): PoolMember[] {
    return this.members.map(({ origin, host, up, build, sameProtocol, suspect }) => ({ origin, host, up, build, sameProtocol, suspect }))
  }

  /**
   * Renders a page from `body` (its render request: the page's data and its tags), sent whole or as a reference
   * to it when the renderer kept it, to a renderer of this gateway's render protocol.
   */
  async render(pathWithQuery: string, headers: Record<string, string>, body: RenderBody, options: RenderOptions = {}): Promise<RenderResponse> {
    await this.resolved
    // The path as undici sends it (the URL parser may encode or normalise it), signed as such: alike for every member.
    const path = sentPath(pathWithQuery)
    const order = this.turnOrder()
    let lastError: unknown
    let retriedReset = false
    let stalled = false
    for (let i = 0; i < order.length; i++) {
      const member = order[i] as Member
      // Down (found out by this render, another or a probe): skipped until a probe passes. Of another protocol: skipped
      // while it says so (a roll, one service rolled back), without being marked down. After a stall, the one retry
      // goes to a renderer that is not suspect itself.
      if (!member.up || member.sameProtocol === false || (stalled && member.suspect)) continue
      const giveUp = new GiveUp()
      member.inFlight.add(giveUp)
      // Past RENDER_STALL_MS without an answer: suspect, and given up when another renderer can take its one retry or
      // a stored page can answer; else waited on (a slow renderer's page is better than none).
      const watch = watchStall(this.options.stallMs, giveUp, () => {
        // Given up already (the member was found hung meanwhile): on its way to the next member.
        if (!member.inFlight.has(giveUp)) return false
        this.health.suspect(member)
        const retry = !stalled && order.some((other, k) => k > i && isRetryTarget(other))
        const gaveUp = retry || options.standIn?.() === true
        this.options.onStall?.(member.origin, gaveUp ? (retry ? 'another renderer' : 'the stored page') : 'waited on')
        return gaveUp
      })
      try {
        const target = { origin: member.base.origin, host: member.host, keptAs: member.origin }
        const response = await sendRender(this.agent, this.signer, target, path, headers, body, giveUp)
        // Answered (a streamed page's head): from here on a stall is the page's own, never retried.
        watch.answered()
        const taken = await this.taken(member, response)
        if (!(taken instanceof Skipped)) return taken
        lastError = taken.error ?? lastError
      } catch (error) {
        const code = (error as { code?: string }).code ?? ''
        // Found hung while this render waited on it (a hung renderer fails its probes long before RENDER_TIMEOUT_MS): the next member, if one is up.
        if (error instanceof RendererDownError) {
          lastError = error
          continue
        }
        // Given up past RENDER_STALL_MS: once to the next renderer up that is not suspect, else the stored page (the error).
        if (error instanceof RenderStalledError) {
          if (stalled) throw error
          stalled = true
          lastError = error
          continue
        }
        if (UNANSWERED.has(code)) this.health.markDown(member, code, 'hung')
        if (!CONNECT_FAILURES.has(code)) throw error
        lastError = error
        // A kept-alive socket the renderer closed as it was reused: once per render, the same member on a new
        // connection, so a lone renderer is not left out until its probe for a race (a dead one refuses at once).
        if (KEPT_ALIVE_RESETS.has(code) && !retriedReset) {
          retriedReset = true
          i--
          continue
        }
        // Refused, reset or unreachable: closing or gone. A draining renderer refuses new connections while it finishes
        // the renders it has; a dead one's renders fail with their own sockets.
        this.health.markDown(member, code, 'closing')
      } finally {
        watch.answered()
        member.inFlight.delete(giveUp)
      }
    }
    throw lastError ?? new RendererUnavailableError()
  }

  /** The members in this render's turn (round robin), those suspect of a stall last: sent a render only when no other is up. */
  private turnOrder(): Member[] {
    const members = this.members
    const start = this.next++
    const turn = members.map((_, i) => members[(start + i) % members.length] as Member)
    return turn.some((member) => member.suspect) ? [...turn.filter((member) => !member.suspect), ...turn.filter((member) => member.suspect)] : turn
  }

  /**
   * A renderer's answer taken as the page, or skipped (the render goes to the next member): one of another protocol, a
   * closing renderer's 503, or an answer that no renderer sent.
   */
  private async taken(member: Member, response: RenderResponse): Promise<RenderResponse | Skipped> {
    if (ofAnotherProtocol(response.headers)) {
      discard(response)
      member.sameProtocol = false
      const said = response.headers[RENDER_PROTOCOL_HEADER]
      this.options.onProtocolMismatch?.(member.origin, typeof said === 'string' ? said : undefined)
      return new Skipped(new RenderProtocolMismatchError(`${member.origin} speaks render protocol ${typeof said === 'string' ? said : '(none)'}, this gateway ${RENDER_PROTOCOL_VERSION}`))
    }
    member.sameProtocol = true
    if (isClosingAnswer(response.statusCode, response.headers)) {
      discard(response)
      // Draining: it refuses new renders but finishes those it has, so the renders in flight to it are left to complete.
      this.health.markDown(member, 'closing (503)', 'closing')
      return new Skipped(undefined)
    }
    if (!fromRenderer(response.headers)) {
      discard(response)
      // The renderer is out of reach at that address: the renders on its connections are given up too.
      this.health.markDown(member, 'answered without a renderer\'s mark', 'hung')
      return new Skipped(new NotARendererError(`${member.origin} answered ${response.statusCode} without a renderer's mark`))
    }
    // A page rendered whole came with its length and has been read whole; a streamed one gets the commit window.
    const page = Buffer.isBuffer(response.body) ? response.body : await afterCommitWindow(response.body, RENDERER_COMMIT_WINDOW_MS)
    // Not put back in turn when it was marked down meanwhile: only a render to a closing (or gone) member finishes
    // after that (a hung one's are given up), and a closing renderer that finishes its renders takes no new ones.
    return { statusCode: response.statusCode, headers: response.headers, body: page, trailers: response.trailers }
  }

  /** Whether at least one renderer answers its health check now (readiness); every member's state follows the answers. */
  async healthy(): Promise<boolean> {
    await this.resolved
    const checks = await Promise.all(
      this.members.map(async (member) => {
        const result = await this.health.check(member)
        this.health.afterCheck(member, result)
        return result === 'passed'
      }),
    )
    return checks.some(Boolean)
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer)
    this.health.close(this.members)
    await this.agent.close()
  }

  /**
   * A file of the client bundle from the renderers (each serves its own build's): for a page that a renderer of
   * another build wrote, naming files this gateway's build lacks. Asked of each renderer up in turn until one has
   * it; undefined when none does.
   */
  async fetchAsset(path: string): Promise<BuildAsset | undefined> {
    await this.resolved
    return fetchBuildAsset(this.agent, this.members.filter((member) => member.up), path)
  }

  /** Members after a fresh look-up, keeping each known address's state; a name that does not resolve now keeps its last addresses. */
  private async refresh(): Promise<void> {
    const { members, added, gone, failures } = await refreshMembers(this.urls, () => this.members, this.options.lookup ?? lookupAll, this.lookupFailures)
    // A new member starts up, as it was just resolved and a render finds out otherwise; it is first probed after the interval.
    for (const member of added) this.health.schedule(member, this.options.probeIntervalMs)
    for (const member of gone) this.health.unschedule(member)
    this.members = members
    this.options.onRefresh?.(this.list(), failures)
  }
}
