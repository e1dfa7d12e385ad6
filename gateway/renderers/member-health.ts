import { RENDERER_PROBE_BACKOFF_START_MS, RENDERER_PROBE_JITTER } from '../../shared/constants.ts'
import { RendererDownError } from '../errors.ts'
import type { GiveUp } from './render-exchange.ts'
import type { RendererAddress } from './renderer-addresses.ts'
import type { CheckOutcome, CheckResult } from './renderer-requests.ts'

/** Why a member is marked down: it hangs (its renders in flight are given up), or it is closing or gone (they are left to finish or fail by themselves). */
export type DownCause = 'hung' | 'closing'

/** What the probes are scheduled on; tests drive their own. */
export interface ProbeTimers {
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** Unref'd: a pending probe never keeps the process up. */
const PROCESS_TIMERS: ProbeTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

/** One renderer of the pool: where it is, and its health. */
export interface Member extends RendererAddress {
  base: URL
  /** The configured URL this address came from. */
  source: string
  up: boolean
  /** While down: the probe delay before jitter, doubling per failed probe up to the probe interval. */
  backoffMs: number
  /** The member's next probe, when one is scheduled. */
  probeTimer: unknown
  /** Renders sent to it and not yet answered (or still in their commit window): given up at once when it is found hung, left to finish when it is closing. */
  inFlight: Set<GiveUp>
  /** The build it said it belongs to at its last health check (undefined before one, or from a renderer that does not say). */
  build: string | undefined
  /** Whether it speaks this gateway's render protocol, as its last health check or render said (undefined: not known yet). */
  sameProtocol: boolean | undefined
  /** A render stalled on it (RENDER_STALL_MS) and no health check has passed since: sent renders only when no other is up. */
  suspect: boolean
}

/** A member just resolved at `address` from the configured URL `source`: up, as a render finds out otherwise. */
export function newMember(address: RendererAddress, source: string): Member {
  return { ...address, base: new URL(address.origin), source, up: true, backoffMs: 0, probeTimer: undefined, inFlight: new Set(), build: undefined, sameProtocol: undefined, suspect: false }
}

export interface MemberHealthOptions {
  /**
   * How often an up member's /healthz is checked, and the longest a down
   * member's probes back off to (from RENDERER_PROBE_BACKOFF_START_MS,
   * doubling); a down member is skipped until a probe passes.
   */
  probeIntervalMs: number
  /** Asks one member's /healthz (checkHealth, renderer-requests.ts). */
  ask: (member: Member) => Promise<CheckOutcome>
  /** Whether the member is still in the pool: one gone meanwhile (a replica that left) is checked no more. */
  isMember: (member: Member) => boolean
  /** The timers probes are scheduled on (tests fire them). */
  timers?: ProbeTimers | undefined
  /** Draws each down member's probe delay within its jitter (0..1). */
  random?: (() => number) | undefined
  onMemberChange?: ((origin: string, up: boolean, reason: string) => void) | undefined
  /** A renderer became suspect of a stall (it gets no render while another is up), or its health check cleared it. */
  onSuspect?: ((origin: string, suspect: boolean) => void) | undefined
}

/**
 * Each member's up, down and suspect state, and its probes: an up member's health is checked at the interval, a
 * down one's backs off while it stays down, a suspect one's is asked at once. Marking a hung member down gives up
 * the renders waiting on it.
 */
export class MemberHealth {
  private readonly timers: ProbeTimers
  private readonly random: () => number
  private closed = false

  constructor(private readonly options: MemberHealthOptions) {
    this.timers = options.timers ?? PROCESS_TIMERS
    this.random = options.random ?? Math.random
  }

  /** No probe from now on: the pool is closed. */
  close(members: readonly Member[]): void {
    this.closed = true
    for (const member of members) this.unschedule(member)
  }

  /** Asks a member's health check; one that passed says its build and protocol. */
  async check(member: Member): Promise<CheckResult> {
    const checked = await this.options.ask(member)
    if (checked.result === 'passed') {
      member.build = checked.build
      member.sameProtocol = checked.sameProtocol
    }
    return checked.result
  }

  /** One member's health check, in the background: never on a visitor's request. */
  private async probe(member: Member): Promise<void> {
    member.probeTimer = undefined
    this.afterCheck(member, await this.check(member))
  }

  /** A member's state after a health check, and when it is checked next: at the interval while up, backing off while down. */
  afterCheck(member: Member, result: CheckResult): void {
    // A member gone meanwhile (a replica that left, the pool closed) is checked no more.
    if (this.closed || !this.options.isMember(member)) return
    // Unanswered, or answered by a stranger: the renders sent to it are lost, even those a closing member was left to finish.
    const lost = result === 'unanswered' || result === 'stranger'
    const reason = result === 'unanswered' ? 'health check unanswered' : result === 'stranger' ? 'health check answered by something else' : 'health check failed'
    if (lost) this.giveUpInFlight(member, reason)
    if (result === 'passed') {
      this.clearSuspect(member)
      if (member.up) this.schedule(member, this.options.probeIntervalMs)
      else this.markUp(member, 'health check passed')
    } else if (member.up) {
      this.markDown(member, reason, lost ? 'hung' : 'closing')
    } else {
      member.backoffMs = Math.min(member.backoffMs * 2, this.options.probeIntervalMs)
      this.schedule(member, this.jittered(member.backoffMs))
    }
  }

  private markUp(member: Member, reason: string): void {
    if (member.up) return
    member.up = true
    member.backoffMs = 0
    this.schedule(member, this.options.probeIntervalMs)
    this.options.onMemberChange?.(member.origin, true, reason)
  }

  /**
   * Skipped from now on; its first probe soon, in case it was a moment's failure. A hung member's renders in flight
   * are given up with it; a closing one's are left to finish (a renderer closing on SIGTERM answers 503 to new
   * requests and refuses new connections, but completes the renders it has).
   */
  markDown(member: Member, reason: string, cause: DownCause): void {
    if (!member.up) return
    member.up = false
    // Down says more: back in turn, it starts clean.
    member.suspect = false
    if (cause === 'hung') this.giveUpInFlight(member, reason)
    member.backoffMs = Math.min(RENDERER_PROBE_BACKOFF_START_MS, this.options.probeIntervalMs)
    this.schedule(member, this.jittered(member.backoffMs))
    this.options.onMemberChange?.(member.origin, false, reason)
  }

  /**
   * A render stalled on it: no new render while another member is up, and its health check now rather than at the
   * interval. A hung renderer fails it (marked down, its renders given up); one that passes is in turn again.
   */
  suspect(member: Member): void {
    if (!member.up || member.suspect) return
    member.suspect = true
    this.schedule(member, 0)
    this.options.onSuspect?.(member.origin, true)
  }

  private clearSuspect(member: Member): void {
    if (!member.suspect) return
    member.suspect = false
    this.options.onSuspect?.(member.origin, false)
  }

  /** Renders waiting on a hung member are given up now, not at RENDER_TIMEOUT_MS: each goes to the next member or its stored page. */
  private giveUpInFlight(member: Member, reason: string): void {
    for (const giveUp of member.inFlight) giveUp.give(new RendererDownError(`renderer hung: ${reason}`))
    member.inFlight.clear()
  }

  /** A delay drawn from the upper part of `ms`, so that gateways that lost a renderer at one moment do not probe it in step. */
  private jittered(ms: number): number {
    return Math.round(ms * (1 - RENDERER_PROBE_JITTER * this.random()))
  }

  /** The member's next probe in `delayMs`, in place of any scheduled; none once closed. */
  schedule(member: Member, delayMs: number): void {
    this.unschedule(member)
    if (this.closed) return
    member.probeTimer = this.timers.setTimeout(() => void this.probe(member), delayMs)
  }

  unschedule(member: Member): void {
    if (member.probeTimer === undefined) return
    this.timers.clearTimeout(member.probeTimer)
    member.probeTimer = undefined
  }
}
