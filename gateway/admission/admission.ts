import { finished } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { CACHE_STATUS_HEADER, PRIVATE_NO_STORE } from '../../shared/constants.ts'
import { PAYLOAD_PARTS } from '../../shared/payload.ts'
import { WorkBudgetError } from '../errors.ts'
import type { RenderResponse } from '../renderers/renderer-pool.ts'
import type { ConcurrencyGate } from './concurrency-gate.ts'
import type { WorkBudget } from './work-budget.ts'

/** Whose work it is: a request id its renderer's own requests carry, the client charged (a verified crawler from its own budget), and the end of its answer. */
export interface WorkCaller {
  id: string
  client: string
  crawler?: string | undefined
  onEnd(done: () => void): void
}

/** A request's work, which ends when its response closes. */
export function callerOf(request: FastifyRequest, reply: FastifyReply): WorkCaller {
  return { id: request.id, client: request.client, crawler: request.crawler, onEnd: (done) => reply.raw.once('close', done) }
}

/** What a client's request was told: admitted with its work charged, or refused (over budget). */
export type ClientOutcome = 'admitted' | 'refused'

/** Whose budget a request's work was charged to: a stranger's (`client`) or a verified crawler's (`crawler`). */
export type ClientKind = 'client' | 'crawler'

/** The payload requests a renderer may make for one render under its request id before they are charged like any other. */
const PAYLOADS_PER_RENDER = PAYLOAD_PARTS.length

/** The client a request's uncached work is charged to, while the request (and, for a page, its render's own requests) is under way. */
interface Account {
  client: string
  budget: WorkBudget
  /** A render of a page already stored (a revalidation): nothing it costs is charged. */
  free: boolean
  /** Payload requests under this request id still admitted without a look at the budget (a render's own). */
  payloadsFree: number
  /** Requests open under this id. */
  open: number
}

export interface AdmissionOptions {
  budget: WorkBudget
  /** Verified crawlers' budgets (CRAWLER_WORK_BUDGET). */
  crawlerBudget: WorkBudget
  /** Calls in flight to the CMS (CMS_CONCURRENCY). */
  cms: ConcurrencyGate
  /** Renders in flight (RENDER_CONCURRENCY per renderer). */
  renders: ConcurrencyGate
  onClient?: (outcome: ClientOutcome, kind: ClientKind) => void
}

/**
 * The one admission of uncached work, for every route: each client's budget
 * of work units (a render, a CMS call), and the global bounds on what is in
 * flight to the CMS and the renderers. A cache hit never comes here.
 */
export class Admission {
  readonly budget: WorkBudget
  readonly crawlerBudget: WorkBudget
  readonly cms: ConcurrencyGate
  readonly renders: ConcurrencyGate
  private readonly accounts = new Map<string, Account>()
  private readonly onClient: (outcome: ClientOutcome, kind: ClientKind) => void

  constructor(options: AdmissionOptions) {
    this.budget = options.budget
    this.crawlerBudget = options.crawlerBudget
    this.cms = options.cms
    this.renders = options.renders
    this.onClient = options.onClient ?? (() => undefined)
  }

  /**
   * A page about to be rendered: one unit, and its CMS calls as they are
   * made, unless it renders again a page already stored (a revalidation,
   * which any visitor may happen to trigger). Undefined when admitted, else
   * the seconds until the client may ask again.
   */
  admitRender(caller: WorkCaller, revalidation: boolean): number | undefined {
    const budget = this.budgetOf(caller.crawler)
    if (!revalidation) {
      const refused = budget.take(caller.client)
      if (refused !== undefined) return this.refuse(refused, budget)
    }
    this.open(caller, { client: caller.client, budget, free: revalidation, payloadsFree: PAYLOADS_PER_RENDER })
    this.onClient('admitted', this.kindOf(budget))
    return undefined
  }

  /**
   * A payload or an /api call, which may need the CMS: admitted while its
   * client has budget left, its CMS calls then charged as they are made. A
   * renderer's payload requests for a render in flight (under that render's
   * request id) are the render's: its first ones are admitted at once, any
   * more only while the page's client has budget, never against the
   * renderer's own address, which every render shares.
   */
  admitWork(request: FastifyRequest, reply: FastifyReply): number | undefined {
    const render = this.accounts.get(request.id)
    if (render && render.payloadsFree > 0) {
      render.payloadsFree--
      return undefined
    }
    const client = render?.client ?? request.client
    const budget = render?.budget ?? this.budgetOf(request.crawler)
    const refused = budget.refused(client)
    if (refused !== undefined) return this.refuse(refused, budget)
    if (!render) this.open(callerOf(request, reply), { client, budget, free: false, payloadsFree: 0 })
    this.onClient('admitted', this.kindOf(budget))
    return undefined
  }

  /** A CMS call made for a request (a miss, or a preview; never a refresh of a stored answer): one unit of its client's. */
  chargeCmsCall(requestId: string | undefined): void {
    const account = requestId === undefined ? undefined : this.accounts.get(requestId)
    if (account && !account.free) account.budget.charge(account.client)
  }

  /**
   * A render whose data is gathered before it is admitted (it started beside
   * a redirect lookup that had to ask the CMS): its account opens now, so
   * the CMS calls of that data are its client's, as any miss's are.
   */
  gathering(caller: WorkCaller): void {
    if (!this.accounts.has(caller.id)) this.open(caller, this.renderAccount(caller))
  }

  /**
   * A page's render in a renderer's slot, kept until the page has been sent
   * whole or dropped. A render started before its page was admitted (beside a
   * redirect lookup that had to ask the CMS) has its request's account all
   * the same: the renderer's own payload requests are never its address's.
   */
  async render(caller: WorkCaller, start: () => Promise<RenderResponse>): Promise<RenderResponse> {
    if (!this.accounts.has(caller.id)) this.open(caller, this.renderAccount(caller))
    const release = await this.renders.enter()
    let rendered: RenderResponse
    try {
      rendered = await start()
    } catch (error) {
      release()
      throw error
    }
    if (Buffer.isBuffer(rendered.body)) release()
    else finished(rendered.body, () => release())
    return rendered
  }

  private budgetOf(crawler: string | undefined): WorkBudget {
    return crawler === undefined ? this.budget : this.crawlerBudget
  }

  private kindOf(budget: WorkBudget): ClientKind {
    return budget === this.crawlerBudget ? 'crawler' : 'client'
  }

  private renderAccount(caller: WorkCaller): Omit<Account, 'open'> {
    return { client: caller.client, budget: this.budgetOf(caller.crawler), free: false, payloadsFree: PAYLOADS_PER_RENDER }
  }

  private refuse(retryAfterSeconds: number, budget: WorkBudget): number {
    this.onClient('refused', this.kindOf(budget))
    return retryAfterSeconds
  }

  private open(caller: WorkCaller, account: Omit<Account, 'open'>): void {
    const known = this.accounts.get(caller.id)
    if (known) {
      known.open++
      // The page's admission decides what its render costs, also after the render began.
      known.free = account.free
      known.payloadsFree = Math.max(known.payloadsFree, account.payloadsFree)
    } else this.accounts.set(caller.id, { ...account, open: 1 })
    caller.onEnd(() => {
      const current = this.accounts.get(caller.id)
      if (current && --current.open === 0) this.accounts.delete(caller.id)
    })
  }
}

/** The error to throw for a client over its budget, its answer's headers set: the Dutch page for a page, JSON for a payload or /api. */
export function overBudget(reply: FastifyReply, retryAfterSeconds: number): InstanceType<typeof WorkBudgetError> {
  reply.header(CACHE_STATUS_HEADER, 'BYPASS').header('retry-after', String(retryAfterSeconds)).header('cache-control', PRIVATE_NO_STORE)
  return new WorkBudgetError(retryAfterSeconds)
}
