import { runServer } from '../../shared/run-server.ts'
import { buildRenderer } from './app.ts'
import { loadRendererConfig } from '../config.ts'

await runServer({
  service: 'renderer',
  loadConfig: loadRendererConfig,
  build: buildRenderer,
  upstreams: (config) => ({ gateway: config.gatewayUrl.href }),
})
