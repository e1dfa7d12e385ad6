import type { FastifyInstance } from 'fastify'
import mercurius from 'mercurius'
import { CRAFT_TOKEN_HEADER, EMBEDDED_CMS_PATH, PREVIEW_TOKEN_QUERY_PARAM } from '../../shared/constants.ts'
import { type CraftVersion, DEFAULT_CRAFT_VERSION } from '../../shared/craft-naming.ts'
import type { ContentStore } from './content-store.ts'
import { type CmsContext, createCmsSchema } from './schema.ts'

export interface EmbeddedCmsOptions {
  store: ContentStore
  /** The site's default token: accepted like no token at all. */
  siteToken: string | undefined
  /** Whose naming to imitate; Craft 5's by default. */
  version?: CraftVersion
  /** Makes a stored asset path absolute (Craft's volume base URL). */
  assetUrl?: (path: string) => string
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])

function tokenOf(headers: Record<string, unknown>, query: unknown): string | undefined {
  const header = headers[CRAFT_TOKEN_HEADER]
  if (typeof header === 'string' && header !== '') return header
  const fromQuery = (query as Record<string, unknown> | undefined)?.[PREVIEW_TOKEN_QUERY_PARAM]
  return typeof fromQuery === 'string' && fromQuery !== '' ? fromQuery : undefined
}

/**
 * The embedded, Craft-compatible content API at /cms/api: Craft's wire format
 * over the content files in the repository. Drafts are visible only with
 * their preview token; an unknown token is refused as Craft refuses it.
 */
export async function embeddedCms(app: FastifyInstance, options: EmbeddedCmsOptions): Promise<void> {
  const { store } = options
  const schema = createCmsSchema(store, { version: options.version ?? DEFAULT_CRAFT_VERSION, ...(options.assetUrl ? { assetUrl: options.assetUrl } : {}) })

  app.addHook('onRequest', async (request, reply) => {
    // Only the gateway itself, over loopback, talks to the embedded CMS: from outside it does not exist.
    if (!LOOPBACK.has(request.socket.remoteAddress ?? '')) return reply.code(404).send({ errors: [{ message: 'Not found' }] })
  })

  app.addHook('preHandler', async (request, reply) => {
    const token = tokenOf(request.headers, request.query)
    if (token !== undefined && token !== options.siteToken && !store.isPreviewToken(token)) {
      return reply.code(400).send({ errors: [{ message: 'Invalid token.' }] })
    }
  })

  await app.register(mercurius, {
    schema,
    path: EMBEDDED_CMS_PATH,
    graphiql: false,
    context: (request): CmsContext => {
      const token = tokenOf(request.headers, request.query)
      return { token: token === options.siteToken ? undefined : token }
    },
  })
}
