import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { RenderBodyMemo } from '../../pages/render-body.ts'
import { RendererPool } from '../../renderers/renderer-pool.ts'

declare module 'fastify' {
  interface FastifyInstance {
    renderers: RendererPool
    /** Live pages' render request bodies, kept while their data is unchanged. */
    renderBodies: RenderBodyMemo
  }
}

/** The renderers (RENDERER_URLS, each name resolved to its replicas), taken in turn. */
async function renderers(app: FastifyInstance): Promise<void> {
  const { config } = app
  const pool = new RendererPool(config.rendererUrls, config.renderTimeoutMs, {
    probeIntervalMs: config.rendererProbeIntervalMs,
    dnsRefreshMs: config.rendererDnsRefreshMs,
    renderSecret: config.renderSecret,
    onMemberChange: (origin, up, reason) => app.log[up ? 'info' : 'warn']({ renderer: origin, reason }, up ? 'renderer back in turn' : 'renderer skipped'),
    onProtocolMismatch: (origin, said) => app.log.warn({ renderer: origin, protocol: said ?? null }, 'renderer of another render protocol (another release); renders go to those of this one'),
    stallMs: config.renderStallMs,
    onStall: (origin, then) => app.log.warn({ renderer: origin, stallMs: config.renderStallMs, then }, 'render stalled; renderer avoided until its health check passes'),
    onSuspect: (origin, suspect) => {
      if (!suspect) app.log.info({ renderer: origin }, 'stalled renderer passed its health check; in turn again')
    },
    onLookupFailed: (host, error) => app.log.warn({ host, err: error }, 'renderer host name does not resolve; keeping its last addresses'),
  })
  app.decorate('renderers', pool)
  app.decorate('renderBodies', new RenderBodyMemo())
  app.addHook('onClose', async () => pool.close())
}

export default fp(renderers, { name: 'renderers', dependencies: ['config'] })
