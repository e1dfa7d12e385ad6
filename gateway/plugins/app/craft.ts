import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { logDroppedLinks } from '../../../shared/link-href.ts'
import { histogram } from '../../../shared/metrics.ts'
import { createOperations } from '../../../shared/operations.ts'
import { CraftClient } from '../../craft/client.ts'
import { ContentService } from '../../craft/content-service.ts'
import { CraftSchema } from '../../craft/craft-schema.ts'
import { UpstreamUnavailableError } from '../../errors.ts'

declare module 'fastify' {
  interface FastifyInstance {
    content: ContentService
    /** What Craft's schema accepts: its naming, and the operations it would refuse. */
    craftSchema: CraftSchema
  }
}

/** Craft (or the embedded API): its client, the allowlisted operations through the query caches, and what its schema accepts. */
async function craft(app: FastifyInstance): Promise<void> {
  const { config } = app
  const { registry, countCacheLookup } = app.metrics
  const upstreamSeconds = histogram(registry, 'upstream_request_duration_seconds', 'Time of each call to the CMS', ['outcome'])
  const client = new CraftClient({
    url: () => {
      const url = config.craftApiUrl ?? app.embeddedCmsUrl
      if (!url) throw new UpstreamUnavailableError()
      return url
    },
    schemaToken: config.craftSchemaToken,
    ...config.upstream,
    onTiming: (seconds, outcome) => upstreamSeconds.observe({ outcome }, seconds),
    admit: () => app.admission.cms.enter(),
  })
  // The embedded API's naming is known; a real Craft's is learnt from its schema once it answers.
  const configuredVersion = config.craftApiUrl ? config.craftVersion : config.embeddedCraftVersion
  const content = new ContentService(
    client,
    { pages: app.cache, api: app.apiCache },
    createOperations(config.siteHandle, configuredVersion),
    config.cache.queryCache,
    (result, audience) => countCacheLookup(audience === 'api' ? 'api' : 'query', result),
    (context) => app.admission.chargeCmsCall(context.requestId),
    logDroppedLinks((fields, message) => app.log.warn(fields, message)),
  )
  const craftSchema = new CraftSchema({
    client,
    product: config.siteHandle,
    configuredVersion,
    introspection: config.craftIntrospection,
    retryMs: config.craftSchemaRetryMs,
    log: app.log,
    onOperations: (operations, unavailable) => content.useOperations(operations, unavailable),
  })
  app.decorate('content', content)
  app.decorate('craftSchema', craftSchema)
  // Craft is asked for its schema once the gateway listens (the embedded API listens from onReady on).
  app.addHook('onListen', async () => craftSchema.start())
  app.addHook('onClose', async () => {
    craftSchema.close()
    await client.close()
  })
}

export default fp(craft, { name: 'craft', dependencies: ['config', 'metrics', 'query-cache', 'embedded-cms', 'admission'] })
