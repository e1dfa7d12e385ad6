import { runServer } from '../shared/run-server.ts'
import { buildGateway } from './app.ts'
import { loadGatewayConfig } from './config.ts'
import { drainThenClose } from './drain.ts'

await runServer({
  service: 'gateway',
  loadConfig: loadGatewayConfig,
  build: buildGateway,
  async listen(app, config) {
    await app.listen({ host: config.host, port: config.port })
    const internal = await app.internal.listen({ host: config.internalHost, port: config.internalPort })
    app.log.info({ upstream: config.craftApiUrl?.href ?? 'embedded', renderers: config.rendererUrls.map((u) => u.href), internal }, 'gateway listening')
  },
  close: drainThenClose,
})
