import closeWithGrace from 'close-with-grace'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { AddressInfo } from 'node:net'
import { SHUTDOWN_DEADLINE_MS } from './constants.ts'
import { ConfigError } from './errors.ts'
import { FollowedListeners } from './followed-listeners.ts'
import { resolveListenHosts } from './listen-hosts.ts'

/** Where a service's own listener opens: every service's configuration has it. */
export interface ListenAddress {
  host: string
  port: number
  /** How often `host`'s `@subnet` / `@name` entries are resolved again (shared/followed-listeners.ts); 0 or absent: only at start. */
  hostRecheckIntervalMs?: number
}

/** What a service's server.ts says about itself; runServer does the rest, the same way for both. */
export interface ServerDefinition<Config extends ListenAddress, App extends FastifyInstance> {
  /** The name in the configuration error and in the line that says the service is listening. */
  service: string
  /** Reads the environment; a ConfigError stops the process with exit code 2. */
  loadConfig(): Config
  build(config: Config): Promise<App>
  /** Where the service sends its own requests, named in the line that says it is listening. */
  upstreams?(config: Config): Record<string, unknown>
  /** Opens the service's other listeners, after its own; their addresses by name, for that same line. */
  listenMore?(app: App, config: Config): Promise<Record<string, string>>
  /** After the addresses listened on changed (a network cut and connected again under a new address). */
  onListenersChanged?(app: App, hosts: string[]): void
  /** The service's own close steps (closing the app when not given); the process exits once they are done. */
  close?(app: App): Promise<void>
  /** From the first reason to close to the forced exit (code 1). */
  deadlineMs?: number
}

/** Exit code of a configuration error: the process never started. */
const CONFIG_ERROR_EXIT_CODE = 2

/**
 * Signals runServer answers itself rather than through close-with-grace,
 * which exits at once (code 1) on any second signal. Ctrl-C under `npm
 * start` or `npm run dev` sends a service two: the terminal's SIGINT, then
 * the SIGTERM the starter passes on; the second must not cut the drain short.
 */
const CLOSING_SIGNALS = ['SIGTERM', 'SIGINT'] as const
type ClosingSignal = (typeof CLOSING_SIGNALS)[number]

/**
 * Starts a service: configuration (or exit code 2 with the reason on
 * stderr), the app, then close-with-grace before the listeners open (its own
 * on the configured host and port, then its others), then one line that says
 * it is listening and where it sends its requests. Every way out is in the
 * app's log: the signal, the uncaught error or unhandled rejection, the
 * deadline passing, closing failing. Exit code 0 after a
 * clean close on a signal (or with nothing left to run); 1 after an error,
 * a failed close, the deadline, or the same signal twice.
 */
export async function runServer<Config extends ListenAddress, App extends FastifyInstance>(server: ServerDefinition<Config, App>): Promise<void> {
  const config = loadConfigOrExit(server)
  const app = await server.build(config)
  closeOnExitReasons(app.log, () => (server.close ? server.close(app) : app.close()), server.deadlineMs ?? SHUTDOWN_DEADLINE_MS)
  // HOST may name several addresses (shared/listen-hosts.ts): the app listens on the first, the others pass their requests on.
  // They follow the machine's addresses of the moment for `@` entries (every hostRecheckIntervalMs).
  const hosts = await resolveListenHostsOrExit(server.service, config.host)
  const [firstHost = config.host] = hosts
  // Hooks can only be added before the app listens.
  let listeners: FollowedListeners | undefined
  app.addHook('preClose', async () => listeners?.close())
  await app.listen({ host: firstHost, port: config.port })
  const { port } = app.server.address() as AddressInfo
  listeners = new FollowedListeners({
    server: app.server,
    setting: config.host,
    appHost: firstHost,
    port,
    intervalMs: config.hostRecheckIntervalMs ?? 0,
    log: app.log,
  })
  if (server.onListenersChanged) listeners.on('change', (current) => server.onListenersChanged?.(app, current))
  await listeners.start(hosts)
  const otherListeners = await server.listenMore?.(app, config)
  // Its own address as bound (PORT=0 takes a port of the kernel's choosing): how a starter learns where it is.
  app.log.info({ url: app.listeningOrigin, ...server.upstreams?.(config), ...otherListeners }, `${server.service} listening`)
}

/** Listener addresses of a setting, or exit code 2 as for any configuration error (a `@name` that is none of this machine's). */
export async function resolveListenHostsOrExit(service: string, setting: string): Promise<string[]> {
  try {
    return await resolveListenHosts(setting)
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`${service}: configuration error: ${error.message}`)
      process.exit(CONFIG_ERROR_EXIT_CODE)
    }
    throw error
  }
}

function loadConfigOrExit<Config>(server: { service: string; loadConfig(): Config }): Config {
  try {
    return server.loadConfig()
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`${server.service}: configuration error: ${error.message}`)
      process.exit(CONFIG_ERROR_EXIT_CODE)
    }
    throw error
  }
}

function closeOnExitReasons(log: FastifyBaseLogger, close: () => Promise<void>, deadlineMs: number): void {
  let closing = false
  const closer = closeWithGrace(
    {
      delay: deadlineMs,
      // Every line below goes to the app's own log, not to the console.
      logger: false,
      skip: [...CLOSING_SIGNALS],
      onTimeout: (delay) => log.error({ deadlineMs: delay }, `still closing at the deadline (${delay} ms); exiting with code 1`),
      onSecondSignal: (signal) => log.error({ signal }, `${signal} received while closing; exiting at once with code 1`),
      onSecondError: (err) => log.error({ err }, 'an uncaught error or unhandled rejection while closing; exiting at once with code 1'),
    },
    async ({ signal, err, manual }) => {
      closing = true
      if (err) log.error({ err }, 'an uncaught error or unhandled rejection; closing')
      else if (signal) log.info({ signal }, `${signal} received, closing`)
      // Closing by hand is a closing signal's doing, and it has said so (onSignal).
      else if (!manual) log.info('nothing left to run; closing')
      try {
        await close()
      } catch (error) {
        log.error({ err: error }, 'closing failed; exiting with code 1')
        throw error
      }
    },
  )

  // As the services did before close-with-grace: the first SIGTERM or SIGINT closes, the other one while closing is only
  // noted, the same one twice exits at once (then by Node's default action, now with code 1 and a line saying so).
  const received = new Set<ClosingSignal>()
  const onSignal = (signal: ClosingSignal): void => {
    if (received.has(signal)) {
      log.error({ signal }, `second ${signal} received while closing; exiting at once with code 1`)
      process.exit(1)
    }
    received.add(signal)
    if (closing) {
      log.info({ signal }, `${signal} received while closing; the close goes on`)
      return
    }
    log.info({ signal }, `${signal} received, closing`)
    closer.close()
  }
  for (const signal of CLOSING_SIGNALS) process.on(signal, onSignal)
}
