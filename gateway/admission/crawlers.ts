import { promises as dns } from 'node:dns'
import { isIPv4 } from 'node:net'
import { LRUCache } from 'lru-cache'
import { clientKey } from '../http/client-key.ts'
import { WorkBudget } from './work-budget.ts'

/** The part of node:dns's promises a verification asks; tests hand in a stub. */
export interface CrawlerResolver {
  reverse(address: string): Promise<string[]>
  resolve4(hostname: string): Promise<string[]>
  resolve6(hostname: string): Promise<string[]>
}

interface KnownCrawler {
  name: string
  /** What its User-Agent says. */
  userAgent: RegExp
  /** Where its operator says its addresses' reverse DNS names are. */
  domains: readonly string[]
}

/**
 * The crawlers whose operators document a check by reverse and forward DNS:
 * Google's crawlers (googlebot.com, and google.com for its special-case
 * crawlers) and Bing's (search.msn.com). Google also lists
 * googleusercontent.com, for fetches a user triggers (not crawls), but any
 * Google Cloud machine has a name there that resolves back to it: a stranger
 * on one would pass for Googlebot.
 */
export const KNOWN_CRAWLERS: readonly KnownCrawler[] = [
  { name: 'googlebot', userAgent: /Googlebot|Google-InspectionTool|GoogleOther|Storebot-Google|AdsBot-Google|Mediapartners-Google/i, domains: ['googlebot.com', 'google.com'] },
  { name: 'bingbot', userAgent: /bingbot|msnbot|adidxbot/i, domains: ['search.msn.com'] },
]

/** How a verification ended: `verified`, refuted (`no_ptr`, `other_domain`, `forward_mismatch`), `failed` (timeout, DNS error), or `skipped` (over a bound: not asked). */
export type VerificationOutcome = 'verified' | 'no_ptr' | 'other_domain' | 'forward_mismatch' | 'failed' | 'skipped'

/** A verdict is kept an hour (a crawler's address costs two DNS questions an hour); a failed one a minute, so a crawler hit by a DNS hiccup is soon asked again. */
const VERDICT_TTL_MS = 3_600_000
const FAILED_TTL_MS = 60_000
/** Addresses whose verdict is remembered; an address forgotten is asked again, within the same bounds. */
const MAX_ADDRESSES = 10_000
/** Reverse names of one address tried forward: a crawler's address has one. */
const NAMES_TRIED = 2

export interface CrawlerVerifierOptions {
  resolver: CrawlerResolver
  /** Longest wait for one verification (CRAWLER_LOOKUP_TIMEOUT_MS). */
  timeoutMs: number
  /** Verifications in flight at once (CRAWLER_LOOKUPS_IN_FLIGHT). */
  inFlight: number
  /** Verifications begun per client (an IPv4 address, an IPv6 prefix) and window (CRAWLER_LOOKUPS_PER_CLIENT). */
  perClient: number
  windowMs: number
  maxClients: number
  onOutcome?: (crawler: string, outcome: VerificationOutcome) => void
}

/** The resolver of the gateway: c-ares (never the libuv threads getaddrinfo would hold), each question bounded. */
export function systemResolver(timeoutMs: number): CrawlerResolver {
  return new dns.Resolver({ timeout: timeoutMs, tries: 1 })
}

/** The address as one text, whatever form it came in: IPv4, or IPv6 written out (an IPv4-mapped one as its IPv4); undefined for anything else. */
function exactAddress(address: string): string | undefined {
  const key = clientKey(address, 128)
  if (isIPv4(key)) return key
  return key.endsWith('/128') ? key.slice(0, -'/128'.length) : undefined
}

const under = (name: string, domain: string): boolean => name === domain || name.endsWith(`.${domain}`)

/**
 * Which known crawler a request comes from, by its operator's check: the
 * address's reverse DNS name is under the operator's domain, and that name
 * resolves forward to the same address. Asked only of a User-Agent that
 * claims a known crawler, never waited for: until a verdict is in, the
 * client is a stranger. Verdicts are cached per exact address (an IPv6
 * address too, not its prefix); concurrent requests from one address share
 * one verification; verifications in flight, and begun per client and
 * window, are bounded, so a stranger sending a crawler's User-Agent from
 * many addresses costs a bounded number of DNS questions.
 */
export class CrawlerVerifier {
  private readonly verdicts = new LRUCache<string, boolean>({ max: MAX_ADDRESSES })
  private readonly pending = new Set<string>()
  private readonly begun: WorkBudget
  private readonly onOutcome: (crawler: string, outcome: VerificationOutcome) => void

  constructor(private readonly options: CrawlerVerifierOptions) {
    this.begun = new WorkBudget({ units: options.perClient, windowMs: options.windowMs, maxClients: options.maxClients })
    this.onOutcome = options.onOutcome ?? (() => undefined)
  }

  /** Verifications under way now. */
  get inFlight(): number {
    return this.pending.size
  }

  /** The verified crawler a request comes from, or undefined (no claim, refuted, or not verified yet: then a verification may begin). */
  crawlerOf(address: string, userAgent: string | undefined, client: string): string | undefined {
    if (userAgent === undefined) return undefined
    const crawler = KNOWN_CRAWLERS.find((known) => known.userAgent.test(userAgent))
    const exact = crawler && exactAddress(address)
    if (!crawler || exact === undefined) return undefined
    const key = `${crawler.name} ${exact}`
    const verdict = this.verdicts.get(key)
    if (verdict !== undefined) return verdict ? crawler.name : undefined
    if (!this.pending.has(key)) this.begin(crawler, exact, key, client)
    return undefined
  }

  private begin(crawler: KnownCrawler, exact: string, key: string, client: string): void {
    if (this.pending.size >= this.options.inFlight || this.begun.take(client) !== undefined) {
      this.onOutcome(crawler.name, 'skipped')
      return
    }
    this.pending.add(key)
    void this.verify(crawler, exact).then((outcome) => {
      this.pending.delete(key)
      if (outcome === 'failed') this.verdicts.set(key, false, { ttl: FAILED_TTL_MS })
      else this.verdicts.set(key, outcome === 'verified', { ttl: VERDICT_TTL_MS })
      this.onOutcome(crawler.name, outcome)
    })
  }

  private async verify(crawler: KnownCrawler, exact: string): Promise<VerificationOutcome> {
    let timer: NodeJS.Timeout | undefined
    const timedOut = new Promise<VerificationOutcome>((resolve) => {
      timer = setTimeout(() => resolve('failed'), this.options.timeoutMs)
      timer.unref()
    })
    try {
      return await Promise.race([this.ask(crawler, exact), timedOut])
    } finally {
      clearTimeout(timer)
    }
  }

  private async ask(crawler: KnownCrawler, exact: string): Promise<VerificationOutcome> {
    const { resolver } = this.options
    let names: string[]
    try {
      names = await resolver.reverse(exact)
    } catch (error) {
      return absent(error) ? 'no_ptr' : 'failed'
    }
    const candidates = names
      .map((name) => name.toLowerCase().replace(/\.$/, ''))
      .filter((name) => crawler.domains.some((domain) => under(name, domain)))
      .slice(0, NAMES_TRIED)
    if (candidates.length === 0) return names.length === 0 ? 'no_ptr' : 'other_domain'
    for (const name of candidates) {
      let addresses: string[]
      try {
        addresses = await (isIPv4(exact) ? resolver.resolve4(name) : resolver.resolve6(name))
      } catch (error) {
        if (absent(error)) continue
        return 'failed'
      }
      if (addresses.some((forward) => exactAddress(forward) === exact)) return 'verified'
    }
    return 'forward_mismatch'
  }
}

/** A DNS answer that there is no such name or record, as opposed to a failure to ask. */
function absent(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return code === dns.NOTFOUND || code === dns.NODATA
}
