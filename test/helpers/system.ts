import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { type GatewayOptions, buildGateway } from '../../gateway/app.ts'
import { type GatewayConfig, loadGatewayConfig } from '../../gateway/config.ts'
import { buildRenderer } from '../../renderer/server/app.ts'
import { loadRendererConfig } from '../../renderer/config.ts'
import { freePort, retryOnAddressInUse } from './ports.ts'

export interface LogCollector {
  lines: Record<string, unknown>[]
  stream: Writable
}

export function collectLogs(): LogCollector {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>)
      done()
    },
  })
  return { lines, stream }
}

export interface System {
  url: string
  /** The gateway's internal listener: /readyz, /metrics. */
  internalUrl: string
  gateway: FastifyInstance
  renderer: FastifyInstance
  /** The renderer's own address, for tests that talk to it past the gateway. */
  rendererUrl: string
  /** RENDER_SECRET of both services, for tests that send the renderer requests of their own; undefined when a test turned signing off. */
  renderSecret: string | undefined
  gatewayLogs: LogCollector
  rendererLogs: LogCollector
  close(): Promise<void>
}

/** Settings of a system, or a function of the gateway's port for settings that name it (SITE_URL, EMBEDDED_ASSET_URL). */
export type SystemEnv = Record<string, string> | ((gatewayPort: number) => Record<string, string>)

/**
 * Gateway and renderer in this process, on loopback ports, configured as from
 * the environment. The embedded content's images are on the gateway's own
 * loopback address (EMBEDDED_ASSET_URL) unless the test says otherwise, so
 * a browser loads them whatever SITE_URL says.
 *
 * The renderer needs the gateway's address before the gateway can listen, so
 * the gateway's port is picked free and bound later: when something took it
 * in between (EADDRINUSE), both are closed and started again on another port.
 * Every other listener binds port 0. A test that gives PORT itself retries
 * as a whole.
 */
export async function startSystem(env: SystemEnv = {}, tweak?: (config: GatewayConfig) => void, gatewayOptions: Omit<GatewayOptions, 'logStream'> = {}): Promise<System> {
  // A port the test chose (a process of its own was told it) is tried once: the test retries as a whole (retryOnAddressInUse).
  if (typeof env !== 'function' && env.PORT !== undefined) return startSystemOn(Number(env.PORT), env, tweak, gatewayOptions)
  return retryOnAddressInUse(async () => {
    const gatewayPort = await freePort()
    return startSystemOn(gatewayPort, typeof env === 'function' ? env(gatewayPort) : env, tweak, gatewayOptions)
  })
}

async function startSystemOn(
  gatewayPort: number,
  env: Record<string, string>,
  tweak: ((config: GatewayConfig) => void) | undefined,
  gatewayOptions: Omit<GatewayOptions, 'logStream'>,
): Promise<System> {
  const gatewayLogs = collectLogs()
  const rendererLogs = collectLogs()
  // Both services share a secret, as `npm start` gives them; RENDER_SECRET: '' turns signing off.
  const renderSecret = env.RENDER_SECRET ?? randomBytes(24).toString('base64url')
  const renderer = await buildRenderer(
    loadRendererConfig({ GATEWAY_URL: `http://127.0.0.1:${gatewayPort}`, LOG_LEVEL: 'info', RENDER_SECRET: renderSecret, ...env }),
    { logStream: rendererLogs.stream },
  )
  await renderer.listen({ host: '127.0.0.1', port: 0 })
  const rendererAddress = renderer.server.address()
  const rendererPort = typeof rendererAddress === 'object' && rendererAddress ? rendererAddress.port : 0
  const config = loadGatewayConfig({
    PORT: String(gatewayPort),
    RENDERER_URL: `http://127.0.0.1:${rendererPort}`,
    EMBEDDED_ASSET_URL: `http://127.0.0.1:${gatewayPort}/cms-assets`,
    LOG_LEVEL: 'info',
    INTERNAL_PORT: '0',
    RENDER_SECRET: renderSecret,
    ...env,
  })
  tweak?.(config)
  let gateway: FastifyInstance | undefined
  let internalUrl: string
  try {
    gateway = await buildGateway(config, { ...gatewayOptions, logStream: gatewayLogs.stream })
    await gateway.listen({ host: '127.0.0.1', port: gatewayPort })
    internalUrl = await gateway.internal.listen({ host: config.internalHost, port: config.internalPort })
  } catch (error) {
    await gateway?.close()
    await renderer.close()
    throw error
  }
  // The start-up check of Craft's schema is one upstream call: done before a test counts calls.
  await gateway.craftSchema.settled()
  return {
    url: `http://127.0.0.1:${gatewayPort}`,
    internalUrl,
    gateway,
    renderer,
    rendererUrl: `http://127.0.0.1:${rendererPort}`,
    renderSecret: renderSecret.trim() || undefined,
    gatewayLogs,
    rendererLogs,
    async close() {
      await gateway.close()
      await renderer.close()
    },
  }
}
