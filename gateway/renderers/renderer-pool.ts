import type { Readable } from 'node:stream'
import { Agent, request } from 'undici'
import { DNS_FAILURE_LOG_INTERVAL_MS, RENDERER_COMMIT_WINDOW_MS } from '../../shared/constants.ts'
import { RENDER_DATA_KEPT_HEADER, RENDER_DATA_UNKNOWN_STATUS, RENDER_REFERENCE_CONTENT_TYPE, RENDER_REQUEST_CONTENT_TYPE } from '../../shared/render-request.ts'
import { RenderSigner } from '../../shared/render-signature.ts'
import type { RenderBody } from '../pages/render-body.ts'
import { afterCommitWindow } from './commit-window.ts'
import { type RendererAnswer, exchange } from './render-exchange.ts'
import { RendererUnavailableError } from '../errors.ts'
import { type LookupAll, type RendererAddress, lookupAll, needsLookup, resolveRenderer } from './renderer-addresses.ts'

/** A render: the whole page when it came with its length or within the commit window, else the stream of it; its trailers (the outcome) once it has ended. */
export type RenderResponse = RendererAnswer

/** Drops a render that will not be sent; undici reports the abort as an error, which is expected here. */
export function discard(rendered: RenderResponse): void {
  if (Buffer.isBuffer(rendered.body)) return
  rendered.body.on('error', () => undefined)
  rendered.body.destroy()
}

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

const CONNECT_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET'])

export interface RendererPoolOptions {
  /** How often every member's /healthz is checked; a member that fails is skipped until it passes again. */
  probeIntervalMs: number
  /** How often host names in RENDERER_URL are resolved again (replicas come and go). */
  dnsRefreshMs: number
  lookup?: LookupAll
  /** RENDER_SECRET: every render request is signed with it; unset = unsigned. */
  renderSecret?: string | undefined
  onMemberChange?: (origin: string, up: boolean, reason: string) => void
  /** Told after each look-up round: the members now, and the look-ups that failed (those URLs keep their last addresses). */
  onRefresh?: (members: PoolMember[], failures: { url: string; error: unknown }[]) => void
  /** A host name that did not resolve: told at most once per DNS_FAILURE_LOG_INTERVAL_MS per host, so a lasting outage is one line per interval, not one per look-up. */
  onLookupFailed?: (host: string, error: unknown) => void
  /** The clock the interval above is measured on (tests move it). */
  now?: () => number
}

export interface PoolMember {
  origin: string
  host: string
  up: boolean
}

interface Member extends RendererAddress {
  base: URL
  /** The configured URL this address came from. */
  source: string
  up: boolean
}

/** Fastify's answer while it closes (return503OnClosing) is JSON; a rendered 503 page is HTML and goes to the visitor. */
function isClosingAnswer(statusCode: number, headers: RenderResponse['headers']): boolean {
  const type = headers['content-type']
  return statusCode === 503 && !(typeof type === 'string' && type.startsWith('text/html'))
}

/**
 * Page renders spread over the renderers round robin on kept-alive
 * connections. A renderer that cannot be reached or is closing is marked down
 * and the render tried on the next one; a down renderer is tried only when no
 * other is left, and is back in turn once its health check passes.
 */
export class RendererPool {
  private next = 0
  private readonly agent: Agent
  private members: Member[] = []
  private readonly resolved: Promise<void>
  private readonly timers: NodeJS.Timeout[] = []
  private probing = false
  private readonly signer: RenderSigner | undefined
  /** When each host's failed look-up was last told. */
  private readonly lookupFailureToldAt = new Map<string, number>()

  constructor(
    private readonly urls: readonly URL[],
    headersTimeoutMs: number,
    private readonly options: RendererPoolOptions,
  ) {
    this.agent = new Agent({ connect: { timeout: 2000 }, headersTimeout: headersTimeoutMs, bodyTimeout: headersTimeoutMs, keepAliveTimeout: 10_000 })
    this.signer = options.renderSecret === undefined ? undefined : new RenderSigner(options.renderSecret)
    this.resolved = this.refresh()
    this.timers.push(setInterval(() => void this.probe(), options.probeIntervalMs))
    if (urls.some(needsLookup)) this.timers.push(setInterval(() => void this.refresh(), options.dnsRefreshMs))
    for (const timer of this.timers) timer.unref()
  }

  /** Current members, for logs and tests. */
  list(): PoolMember[] {
    return this.members.map(({ origin, host, up }) => ({ origin, host, up }))
  }

  /**
   * Renders a page; with `body` (a render request) the renderer gets the
   * page's data with the request, or a reference to it when it kept it.
   */
  async render(pathWithQuery: string, headers: Record<string, string>, body?: RenderBody): Promise<RenderResponse> {
    await this.resolved
    const members = this.members
    // The path as undici sends it (the URL parser may encode or normalise it), signed as such: alike for every member.
    const { pathname, search } = new URL(rendererUrl(BASE_FOR_PATHS, pathWithQuery))
    const path = `${pathname}${search}`
    const start = this.next++
    // The members that were up when the render began, in turn from its start, then the ones that were down.
    const upAtStart = members.map((member) => member.up)
    let lastError: unknown
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < members.length; i++) {
        const index = (start + i) % members.length
        if (upAtStart[index] !== (pass === 0)) continue
        const member = members[index] as Member
        try {
          const response = await this.send(member, path, headers, body)
          if (isClosingAnswer(response.statusCode, response.headers)) {
            discard(response)
            this.mark(member, false, 'closing (503)')
            continue
          }
          // A page rendered whole came with its length and has been read whole; a streamed one gets the commit window.
          const page = Buffer.isBuffer(response.body) ? response.body : await afterCommitWindow(response.body, RENDERER_COMMIT_WINDOW_MS)
          this.mark(member, true, 'rendered')
          return { statusCode: response.statusCode, headers: response.headers, body: page, trailers: response.trailers }
        } catch (error) {
          const code = (error as { code?: string }).code ?? ''
          if (!CONNECT_FAILURES.has(code)) throw error
          lastError = error
          this.mark(member, false, code)
        }
      }
    }
    throw lastError ?? new RendererUnavailableError()
  }

  /**
   * One render request to one renderer, signed as it is sent (its time, a
   * nonce, the headers the renderer reads, the body's digest). A body whose
   * data the renderer said it kept goes as a reference (its digest, a few
   * dozen bytes instead of the data); when the renderer no longer has it
   * (evicted, restarted), the body itself follows at once.
   */
  private async send(member: Member, path: string, headers: Record<string, string>, body: RenderBody | undefined): Promise<RendererAnswer> {
    const origin = member.base.origin
    const signer = this.signer
    if (body === undefined) {
      const sent: Record<string, string> = { ...headers, host: member.host }
      return exchange(this.agent, { origin, path, method: 'GET', headers: signer ? { ...sent, ...signer.signing('GET', path, sent) } : sent })
    }
    if (signer && body.keptBy.has(member.origin)) {
      const sent: Record<string, string> = { ...headers, host: member.host, 'content-type': RENDER_REFERENCE_CONTENT_TYPE }
      const signed = { ...sent, ...signer.signing('POST', path, sent, body.referenceDigest) }
      const answer = await exchange(this.agent, { origin, path, method: 'POST', headers: signed, body: body.digest })
      if (answer.statusCode !== RENDER_DATA_UNKNOWN_STATUS && answer.statusCode !== 415) return answer
      discard(answer)
      body.keptBy.delete(member.origin)
    }
    const sent: Record<string, string> = { ...headers, host: member.host, 'content-type': RENDER_REQUEST_CONTENT_TYPE }
    const signed = signer ? { ...sent, ...signer.signing('POST', path, sent, body.digest) } : sent
    const answer = await exchange(this.agent, { origin, path, method: 'POST', headers: signed, body: body.bytes })
    if (signer && answer.headers[RENDER_DATA_KEPT_HEADER] !== undefined) body.keptBy.add(member.origin)
    return answer
  }

  /** Whether at least one renderer answers its health check; every member's state follows the answers. */
  async healthy(): Promise<boolean> {
    await this.resolved
    const checks = await Promise.all(
      this.members.map(async (member) => {
        const up = await this.check(member)
        this.mark(member, up, up ? 'health check passed' : 'health check failed')
        return up
      }),
    )
    return checks.some(Boolean)
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer)
    await this.agent.close()
  }

  private async check(member: Member): Promise<boolean> {
    try {
      const response = await request(new URL('/healthz', member.base), {
        dispatcher: this.agent,
        headers: { host: member.host },
        headersTimeout: 2000,
        bodyTimeout: 2000,
      })
      await response.body.dump()
      return response.statusCode === 200
    } catch {
      return false
    }
  }

  private async probe(): Promise<void> {
    if (this.probing) return
    this.probing = true
    try {
      await this.healthy()
    } finally {
      this.probing = false
    }
  }

  private mark(member: Member, up: boolean, reason: string): void {
    if (member.up === up) return
    member.up = up
    this.options.onMemberChange?.(member.origin, up, reason)
  }

  private tellLookupFailure(host: string, error: unknown): void {
    const now = (this.options.now ?? Date.now)()
    const told = this.lookupFailureToldAt.get(host)
    if (told !== undefined && now - told < DNS_FAILURE_LOG_INTERVAL_MS) return
    this.lookupFailureToldAt.set(host, now)
    this.options.onLookupFailed?.(host, error)
  }

  /** Members after a fresh look-up, keeping each known address's state; a name that does not resolve now keeps its last addresses. */
  private async refresh(): Promise<void> {
    const lookup = this.options.lookup ?? lookupAll
    const known = new Map(this.members.map((member) => [member.origin, member]))
    const failures: { url: string; error: unknown }[] = []
    const lists = await Promise.all(
      this.urls.map(async (url): Promise<Member[]> => {
        let addresses: RendererAddress[]
        try {
          addresses = await resolveRenderer(url, lookup)
        } catch (error) {
          failures.push({ url: url.href, error })
          this.tellLookupFailure(url.hostname, error)
          const previous = this.members.filter((member) => member.source === url.href)
          // Never resolved: keep the name, so renders fail as ENOTFOUND and the next look-up can fix it.
          addresses = previous.length > 0 ? previous : [{ origin: url.origin, host: url.host }]
        }
        return addresses.map((address) => known.get(address.origin) ?? { ...address, base: new URL(address.origin), source: url.href, up: true })
      }),
    )
    const unique = new Map(lists.flat().map((member) => [member.origin, member]))
    this.members = [...unique.values()]
    this.options.onRefresh?.(this.list(), failures)
  }
}
