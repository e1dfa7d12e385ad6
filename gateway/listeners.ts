import type { FastifyInstance } from 'fastify'
import type { AddressInfo } from 'node:net'
import { FollowedListeners } from '../shared/followed-listeners.ts'
import type { AddressSources } from '../shared/listen-hosts.ts'
import { resolveListenHostsOrExit } from '../shared/run-server.ts'
import type { GatewayConfig } from './config.ts'

/**
 * This machine's addresses changed (HOST or INTERNAL_HOST followed them): Redis's connections may be bound to an
 * address that is gone, so they start again, and the next /readyz checks anew rather than report the last check.
 */
export function addressesChanged(app: FastifyInstance): void {
  app.log.info('listening addresses changed: new Redis connections, readiness checked again')
  app.sharedCache?.reconnect()
  app.readiness.forget()
}

/** The internal listener on INTERNAL_HOST (one address), following its `@` entry as HOST's listeners do; its URL. */
export async function listenInternal(app: FastifyInstance, config: GatewayConfig, sources?: AddressSources): Promise<string> {
  const [host = config.internalHost] = await resolveListenHostsOrExit('gateway', config.internalHost)
  // Hooks can only be added before the app listens.
  let listeners: FollowedListeners | undefined
  app.internal.addHook('preClose', async () => listeners?.close())
  const url = await app.internal.listen({ host, port: config.internalPort })
  listeners = new FollowedListeners({
    server: app.internal.server,
    setting: config.internalHost,
    appHost: host,
    port: (app.internal.server.address() as AddressInfo).port,
    intervalMs: config.hostRecheckIntervalMs,
    log: app.log,
    ...(sources ? { sources } : {}),
  })
  listeners.on('change', () => addressesChanged(app))
  await listeners.start([host])
  return url
}
