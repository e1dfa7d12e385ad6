import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { RequestLogController } from '../../../shared/logging.ts'
import { volumeUrl } from '../../embedded-cms/assets.ts'
import { ContentStore } from '../../embedded-cms/content-store.ts'
import { type EmbeddedCmsListener, startEmbeddedCmsListener } from '../../embedded-cms/listener.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The embedded content API on its own loopback listener, once the gateway is ready; undefined with a real Craft. */
    embeddedCmsUrl: URL | undefined
    /** The embedded CMS's content, for its public routes (routes/embedded-cms.ts); undefined with a real Craft. */
    embeddedContent: ContentStore | undefined
  }
}

/**
 * Without CRAFT_API_URL, the Craft-compatible content API over the content
 * files, on a loopback listener of its own that the Craft client (plugins/app/craft.ts)
 * reaches as it would a real Craft. Asset URLs are absolute on
 * EMBEDDED_ASSET_URL, as Craft's are on its volume's base URL.
 */
async function embeddedCms(app: FastifyInstance, options: { logController: RequestLogController }): Promise<void> {
  const { config } = app
  let listener: EmbeddedCmsListener | undefined
  let store: ContentStore | undefined
  if (!config.craftApiUrl) {
    store = ContentStore.fromDirectory(config.contentDir, config.siteHandle)
    listener = await startEmbeddedCmsListener(app, {
      store,
      port: config.embeddedCmsPort,
      schemaToken: config.craftSchemaToken,
      version: config.embeddedCraftVersion,
      assetUrl: volumeUrl(config.embeddedAssetUrl),
      logController: options.logController,
    })
  }
  app.decorate('embeddedCmsUrl', { getter: () => listener?.url })
  app.decorate('embeddedContent', store)
}

export default fp(embeddedCms, { name: 'embedded-cms', dependencies: ['config'] })
