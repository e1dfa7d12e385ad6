import type { FastifyInstance } from 'fastify'
import { embeddedAssets } from '../embedded-cms/assets.ts'
import { liveUpdates } from '../embedded-cms/live-updates.ts'

/** The embedded CMS's part of the public port: its volume's files (/cms-assets/) and live preview updates (/cms/live). */
export async function embeddedCmsRoutes(app: FastifyInstance): Promise<void> {
  const store = app.embeddedContent
  if (!store) return
  await app.register(embeddedAssets, { root: app.config.embeddedAssetDir })
  await app.register(liveUpdates, { store, contentDir: app.config.contentDir, sockets: app.config.live })
}
