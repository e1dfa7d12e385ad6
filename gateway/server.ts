import { resolveListenHostsOrExit, runServer } from '../shared/run-server.ts'
import { buildGateway } from './app.ts'
import { loadGatewayConfig } from './config.ts'
import { drainThenClose } from './plugins/app/drain.ts'

await runServer({
  service: 'gateway',
  loadConfig: loadGatewayConfig,
  build: buildGateway,
  upstreams: (config) => ({ upstream: config.craftApiUrl?.href ?? 'embedded', renderers: config.rendererUrls.map((url) => url.href) }),
  listenMore: async (app, config) => {
    const [host = config.internalHost] = await resolveListenHostsOrExit('gateway', config.internalHost)
    return { internal: await app.internal.listen({ host, port: config.internalPort }) }
  },
  close: drainThenClose,
})
