import { runServer } from '../shared/run-server.ts'
import { buildRenderer } from './app.ts'
import { loadRendererConfig } from './config.ts'

await runServer({
  service: 'renderer',
  loadConfig: loadRendererConfig,
  build: buildRenderer,
  async listen(app, config) {
    await app.listen({ host: config.host, port: config.port })
    app.log.info({ gateway: config.gatewayUrl.href }, 'renderer listening')
  },
  close: (app) => app.close(),
})
