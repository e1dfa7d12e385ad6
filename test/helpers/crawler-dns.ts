import type { CrawlerResolver } from '../../gateway/admission/crawlers.ts'

/** What Googlebot sends. */
export const GOOGLEBOT_UA = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
/** What Bingbot sends. */
export const BINGBOT_UA = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)'

const notFound = (question: string): Error => Object.assign(new Error(`${question} ENOTFOUND`), { code: 'ENOTFOUND' })

/**
 * A DNS of the test's own for the gateway's crawler checks (the gateway's
 * `crawlerResolver`): reverse names by address, addresses by name, every
 * question kept in `asked`, and answers held while `hold` is pending.
 */
export class StubResolver implements CrawlerResolver {
  /** PTR names by address, as the gateway writes the address (IPv6 in full, `2001:db8:0:0:0:0:0:1`). */
  readonly names = new Map<string, string[]>()
  /** A and AAAA answers by name. */
  readonly addresses = new Map<string, string[]>()
  readonly asked: string[] = []
  hold: Promise<void> | undefined

  /** An address whose reverse name is `name`, which resolves back to `forward` (the address itself unless said otherwise). */
  answer(address: string, name: string, forward: string[] = [address]): void {
    this.names.set(address, [name])
    // DNS names are the same with or without their root's dot.
    this.addresses.set(name.replace(/\.$/, ''), forward)
  }

  /** How many times `question` (`reverse 192.0.2.1`, `resolve4 name`) was asked. */
  times(question: string): number {
    return this.asked.filter((asked) => asked === question).length
  }

  async reverse(address: string): Promise<string[]> {
    return this.ask(`reverse ${address}`, this.names.get(address))
  }

  async resolve4(hostname: string): Promise<string[]> {
    return this.ask(`resolve4 ${hostname}`, this.addresses.get(hostname.replace(/\.$/, ''))?.filter((address) => !address.includes(':')))
  }

  async resolve6(hostname: string): Promise<string[]> {
    return this.ask(`resolve6 ${hostname}`, this.addresses.get(hostname.replace(/\.$/, ''))?.filter((address) => address.includes(':')))
  }

  private async ask(question: string, answer: string[] | undefined): Promise<string[]> {
    this.asked.push(question)
    await this.hold
    if (!answer || answer.length === 0) throw notFound(question)
    return answer
  }
}
