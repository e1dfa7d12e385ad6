import { EventEmitter } from 'node:events'
import type { Server } from 'node:http'
import { type AddressSources, SYSTEM_SOURCES, followsAddresses, listenAlso, resolveListenHostsNow } from './listen-hosts.ts'

export interface FollowedListenersOptions {
  /** The app's own server, already listening on `appHost`: every other listener passes its requests to it. */
  server: Server
  /** The listener setting (HOST, INTERNAL_HOST): addresses, `@subnet` and `@name`, comma-separated. */
  setting: string
  /** The address the app's own server listens on; it stays open until the app closes, whatever the setting resolves to. */
  appHost: string
  port: number
  /** How often `@` entries are resolved again; 0 = never (the addresses found at start stay). */
  intervalMs: number
  log: { info(details: object, message: string): void; warn(details: object, message: string): void }
  sources?: AddressSources
}

export interface FollowedListenersEvents {
  /** The addresses listened on changed (one opened or one closed); after the change took effect. */
  change: [hosts: string[]]
}

/**
 * The listeners of a setting whose `@subnet` / `@name` entries stand for this machine's own addresses, kept in step
 * with them: a container cut from a network and connected again gets a new address there, and a port bound once,
 * at start, would answer on the old one only. Every `intervalMs` the setting is resolved again; an address it now
 * stands for gets a listener, and a listener whose address is no longer this machine's is closed (it takes no new
 * connection; requests in flight finish). An address that is still this machine's keeps its listener even when a
 * name stops resolving to it for a while (Swarm leaves an unhealthy task out of its service's name).
 */
export class FollowedListeners extends EventEmitter<FollowedListenersEvents> {
  /** Open listeners by address: their close, or null for the app's own (closed with the app). */
  private readonly open = new Map<string, (() => void) | null>()
  private readonly sources: AddressSources
  private timer: NodeJS.Timeout | undefined
  private checking: Promise<void> | undefined
  private closed = false

  constructor(private readonly options: FollowedListenersOptions) {
    super()
    this.sources = options.sources ?? SYSTEM_SOURCES
    this.open.set(options.appHost, null)
  }

  /** The addresses listened on now. */
  get hosts(): string[] {
    return [...this.open.keys()]
  }

  /** Opens the listeners of `hosts` (the setting as resolved at start), then follows the setting when it has `@` entries. */
  async start(hosts: readonly string[]): Promise<void> {
    for (const host of hosts) if (!this.open.has(host)) this.open.set(host, await listenAlso(this.options.server, host, this.options.port))
    if (this.options.intervalMs > 0 && followsAddresses(this.options.setting)) {
      this.timer = setInterval(() => void this.recheck(), this.options.intervalMs)
      this.timer.unref()
    }
  }

  /** Resolves the setting again and opens and closes listeners to match; one check at a time. */
  recheck(): Promise<void> {
    this.checking ??= this.check().finally(() => {
      this.checking = undefined
    })
    return this.checking
  }

  /** Closes every listener but the app's own (which closes with the app). */
  close(): void {
    this.closed = true
    clearInterval(this.timer)
    for (const close of this.open.values()) close?.()
    this.open.clear()
  }

  private async check(): Promise<void> {
    let wanted: string[]
    try {
      wanted = await resolveListenHostsNow(this.options.setting, this.sources)
    } catch (error) {
      this.options.log.warn({ err: error, setting: this.options.setting }, 'listening addresses could not be resolved again; keeping the current ones')
      return
    }
    if (this.closed) return
    const own = new Set(this.sources.ownAddresses().map((entry) => entry.address))
    const opened: string[] = []
    const closed: string[] = []
    for (const host of wanted) {
      if (this.open.has(host)) continue
      try {
        const close = await listenAlso(this.options.server, host, this.options.port)
        if (this.closed) close()
        else this.open.set(host, close)
        opened.push(host)
      } catch (error) {
        // Tried again at the next check (an address that is being set up, a port still held).
        this.options.log.warn({ err: error, host, port: this.options.port }, 'could not listen on a new address; trying again')
      }
    }
    for (const [host, close] of this.open) {
      // Only an address that is gone from this machine: a literal entry (0.0.0.0, 127.0.0.1) is never dropped.
      if (close === null || wanted.includes(host) || own.has(host) || !this.resolvedFromEntry(host)) continue
      close()
      this.open.delete(host)
      closed.push(host)
    }
    if (opened.length === 0 && closed.length === 0) return
    this.options.log.info({ opened, closed, hosts: this.hosts, port: this.options.port }, 'listening addresses changed')
    this.emit('change', this.hosts)
  }

  /** Whether an open address came from an `@` entry (a literal one is listened on for as long as the process runs). */
  private resolvedFromEntry(host: string): boolean {
    return !this.options.setting
      .split(',')
      .map((entry) => entry.trim())
      .includes(host)
  }
}
