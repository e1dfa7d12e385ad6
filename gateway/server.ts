import { SHUTDOWN_DRAIN_MS } from '../shared/constants.ts'
import { ConfigError } from '../shared/env.ts'
import { closeOnSignals } from '../shared/graceful-shutdown.ts'
import { buildGateway } from './app.ts'
import { type GatewayConfig, loadGatewayConfig } from './config.ts'

let config: GatewayConfig
try {
  config = loadGatewayConfig()
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`gateway: configuration error: ${error.message}`)
    process.exit(2)
  }
  throw error
}

const app = await buildGateway(config)
closeOnSignals(
  async () => {
    const left = await app.drain.settle(SHUTDOWN_DRAIN_MS)
    app.log.info({ pagesInFlight: left }, left === 0 ? 'pages in flight done; closing' : 'drain deadline passed; closing')
    await app.close()
  },
  (message) => app.log.info(message),
)
await app.listen({ host: config.host, port: config.port })
const internal = await app.internal.listen({ host: config.internalHost, port: config.internalPort })
app.log.info({ upstream: config.craftApiUrl?.href ?? 'embedded', renderers: config.rendererUrls.map((u) => u.href), internal }, 'gateway listening')
