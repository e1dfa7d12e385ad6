import { ConfigError } from '../shared/env.ts'
import { closeOnSignals } from '../shared/graceful-shutdown.ts'
import { buildRenderer } from './app.ts'
import { type RendererConfig, loadRendererConfig } from './config.ts'

let config: RendererConfig
try {
  config = loadRendererConfig()
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`renderer: configuration error: ${error.message}`)
    process.exit(2)
  }
  throw error
}

const app = await buildRenderer(config)
closeOnSignals(() => app.close(), (message) => app.log.info(message))
await app.listen({ host: config.host, port: config.port })
app.log.info({ gateway: config.gatewayUrl.href }, 'renderer listening')
