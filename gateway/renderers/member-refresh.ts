import { DNS_FAILURE_LOG_INTERVAL_MS } from '../../shared/constants.ts'
import { type Member, newMember } from './member-health.ts'
import { type LookupAll, type RendererAddress, resolveRenderer } from './renderer-addresses.ts'

/** A configured URL whose look-up failed this round: it keeps its last addresses. */
export interface LookupFailure {
  url: string
  error: unknown
}

/**
 * Host names that did not resolve, told at most once per DNS_FAILURE_LOG_INTERVAL_MS per host, so a lasting outage
 * is one line per interval, not one per look-up.
 */
export class LookupFailureLog {
  /** When each host's failed look-up was last told. */
  private readonly toldAt = new Map<string, number>()

  constructor(
    private readonly now: () => number,
    private readonly onLookupFailed: ((host: string, error: unknown) => void) | undefined,
  ) {}

  tell(host: string, error: unknown): void {
    const now = this.now()
    const told = this.toldAt.get(host)
    if (told !== undefined && now - told < DNS_FAILURE_LOG_INTERVAL_MS) return
    this.toldAt.set(host, now)
    this.onLookupFailed?.(host, error)
  }
}

/** The members after a look-up round: those new to the pool, those that left it, and the look-ups that failed. */
export interface RefreshedMembers {
  members: Member[]
  added: Member[]
  gone: Member[]
  failures: LookupFailure[]
}

/**
 * Members after a fresh look-up, keeping each known address's state (the same object); a name that does not resolve
 * now keeps its last addresses. `current` is read again when a look-up fails, as the pool's members are then.
 */
export async function refreshMembers(urls: readonly URL[], current: () => readonly Member[], lookup: LookupAll, failureLog: LookupFailureLog): Promise<RefreshedMembers> {
  const before = current()
  const known = new Map(before.map((member) => [member.origin, member]))
  const failures: LookupFailure[] = []
  const lists = await Promise.all(
    urls.map(async (url): Promise<Member[]> => {
      let addresses: RendererAddress[]
      try {
        addresses = await resolveRenderer(url, lookup)
      } catch (error) {
        failures.push({ url: url.href, error })
        failureLog.tell(url.hostname, error)
        const previous = current().filter((member) => member.source === url.href)
        // Never resolved: keep the name, so renders fail as ENOTFOUND and the next look-up can fix it.
        addresses = previous.length > 0 ? previous : [{ origin: url.origin, host: url.host }]
      }
      return addresses.map((address) => known.get(address.origin) ?? newMember(address, url.href))
    }),
  )
  const unique = new Map(lists.flat().map((member) => [member.origin, member]))
  const members = [...unique.values()]
  const added = members.filter((member) => !known.has(member.origin))
  const gone = current().filter((member) => !unique.has(member.origin))
  return { members, added, gone, failures }
}
