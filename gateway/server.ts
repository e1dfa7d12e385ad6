import { runServer } from '../shared/run-server.ts'
import { buildGateway } from './app.ts'
import { loadGatewayConfig } from './config.ts'
import { addressesChanged, listenInternal } from './listeners.ts'
import { drainThenClose } from './plugins/app/drain.ts'

await runServer({
  service: 'gateway',
  loadConfig: loadGatewayConfig,
  build: buildGateway,
  upstreams: (config) => ({ upstream: config.craftApiUrl?.href ?? 'embedded', renderers: config.rendererUrls.map((url) => url.href) }),
  listenMore: async (app, config) => ({ internal: await listenInternal(app, config) }),
  onListenersChanged: addressesChanged,
  close: drainThenClose,
})
