import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { buildGateway } from '../../gateway/app.ts'
import { type GatewayConfig, loadGatewayConfig } from '../../gateway/config.ts'
import { buildRenderer } from '../../renderer/app.ts'
import { loadRendererConfig } from '../../renderer/config.ts'
import { freePort } from './ports.ts'

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
  gateway: FastifyInstance
  renderer: FastifyInstance
  gatewayLogs: LogCollector
  rendererLogs: LogCollector
  close(): Promise<void>
}

/**
 * Gateway and renderer in this process, on loopback ports, configured as from
 * the environment. The embedded content's images are on the gateway's own
 * loopback address (EMBEDDED_ASSET_URL) unless the test says otherwise, so
 * a browser loads them whatever SITE_URL says.
 */
export async function startSystem(env: Record<string, string> = {}, tweak?: (config: GatewayConfig) => void): Promise<System> {
  const gatewayPort = env.PORT ? Number(env.PORT) : await freePort()
  const gatewayLogs = collectLogs()
  const rendererLogs = collectLogs()
  const renderer = await buildRenderer(
    loadRendererConfig({ GATEWAY_URL: `http://127.0.0.1:${gatewayPort}`, LOG_LEVEL: 'info', ...env }),
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
    ...env,
  })
  tweak?.(config)
  const gateway = await buildGateway(config, { logStream: gatewayLogs.stream })
  await gateway.listen({ host: '127.0.0.1', port: gatewayPort })
  // The start-up check of Craft's schema is one upstream call: done before a test counts calls.
  await gateway.craftSchema.settled()
  return {
    url: `http://127.0.0.1:${gatewayPort}`,
    gateway,
    renderer,
    gatewayLogs,
    rendererLogs,
    async close() {
      await gateway.close()
      await renderer.close()
    },
  }
}
