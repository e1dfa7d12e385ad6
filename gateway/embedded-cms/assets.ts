import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

/**
 * Where the gateway serves the embedded content's asset volume: the files
 * that a real Craft keeps on its own host or on an asset CDN.
 */
export const EMBEDDED_ASSETS_PATH = '/cms-assets'

/** How long browsers and CDNs keep a volume file (names are not content-hashed, so not immutable). */
const ASSET_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000

/**
 * Craft's volume base URL: a path relative to the volume, as the content
 * files hold it, becomes an absolute URL under `base` (an absolute http(s)
 * URL, with or without a trailing slash). An address that is absolute
 * already is kept as it is.
 */
export function volumeUrl(base: string): (path: string) => string {
  const prefix = base.replace(/\/+$/, '')
  return (path) => {
    if (/^https?:\/\//i.test(path)) return path
    return `${prefix}/${path.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/')}`
  }
}

export interface EmbeddedAssetsOptions {
  /** The folder of the volume. */
  root: string
}

/**
 * The embedded volume's files under EMBEDDED_ASSETS_PATH. They are loaded as
 * images by pages on another origin (the site's own, or any other when
 * EMBEDDED_ASSET_URL points at a CDN in front of this path), so they are
 * cross-origin resources, as a CMS's or a CDN's files are.
 */
export async function embeddedAssets(app: FastifyInstance, options: EmbeddedAssetsOptions): Promise<void> {
  await app.register(fastifyStatic, {
    root: options.root,
    prefix: `${EMBEDDED_ASSETS_PATH}/`,
    decorateReply: false,
    index: false,
    preCompressed: false,
    maxAge: ASSET_MAX_AGE_MS,
    setHeaders: (reply) => {
      // helmet's default, same-origin, would keep the images from a site on another origin.
      reply.header('cross-origin-resource-policy', 'cross-origin')
    },
  })
}
