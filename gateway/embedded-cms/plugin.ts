import type { FastifyInstance } from 'fastify'
import mercurius from 'mercurius'
import { CRAFT_TOKEN_HEADER, CRAFT_TOKEN_PATTERN, EMBEDDED_CMS_PATH, PREVIEW_TOKEN_QUERY_PARAM } from '../../shared/constants.ts'
import { type CraftVersion, DEFAULT_CRAFT_VERSION } from '../../shared/craft-naming.ts'
import type { ContentStore } from './content-store.ts'
import { type CmsContext, createCmsSchema } from './schema.ts'

export interface EmbeddedCmsOptions {
  store: ContentStore
  /** Craft's schema token: when set, every request must carry exactly `Authorization: Bearer <it>`, as the gateway's client does. */
  schemaToken?: string | undefined
  /** Whose naming to imitate; Craft 5's by default. */
  version?: CraftVersion
  /** Makes a stored asset path absolute (Craft's volume base URL). */
  assetUrl?: (path: string) => string
}

const BEARER = /^Bearer\s+(.+)$/i

/** The token as Craft finds it: the `token` query parameter, else the X-Craft-Token header; empty is none. */
function tokenOf(headers: Record<string, unknown>, query: unknown): unknown {
  const found = (query as Record<string, unknown> | undefined)?.[PREVIEW_TOKEN_QUERY_PARAM] ?? headers[CRAFT_TOKEN_HEADER]
  return found === '' ? undefined : found
}

/** The first bearer token of X-Craft-Authorization or Authorization, as Craft's GraphqlController reads them. */
function bearerOf(headers: Record<string, unknown>): string | undefined {
  const header = headers['x-craft-authorization'] ?? headers.authorization
  const values = (Array.isArray(header) ? header : [header]).filter((value): value is string => typeof value === 'string')
  for (const value of values.flatMap((line) => line.split(',').map((part) => part.trim()))) {
    const match = BEARER.exec(value)
    if (match) return match[1]
  }
  return undefined
}

/** Yii's error body, which Craft sends for a request it refuses before any GraphQL runs: neither `data` nor `errors`. */
function craftRefusal(statusCode: 400 | 403, message: string): Record<string, unknown> {
  return { name: statusCode === 400 ? 'Bad Request' : 'Forbidden', message, code: 0, status: statusCode }
}

/**
 * The embedded, Craft-compatible content API at /cms/api: Craft's wire format
 * over the content files in the repository. The gateway serves it on a
 * loopback listener of its own (listener.ts), never on its public port.
 * Drafts are visible only with their preview token. As Craft does: a token
 * with characters outside [A-Za-z0-9_-] is a 400 before any GraphQL runs; a
 * well-formed token that is unknown (or expired) is ignored and the live
 * content answered; a tokenised answer says `X-Robots-Tag: none`; validation
 * and resolver errors are 200 with `errors` (and no `data` when nothing ran);
 * with a schema token configured, a missing or wrong bearer is a 400.
 */
export async function embeddedCms(app: FastifyInstance, options: EmbeddedCmsOptions): Promise<void> {
  const { store } = options
  const schema = createCmsSchema(store, { version: options.version ?? DEFAULT_CRAFT_VERSION, ...(options.assetUrl ? { assetUrl: options.assetUrl } : {}) })

  // Before the body is read, as Craft finds the token while routing the request and the schema before reading the query.
  app.addHook('onRequest', async (request, reply) => {
    const token = tokenOf(request.headers, request.query)
    if (token !== undefined) {
      if (typeof token !== 'string' || !CRAFT_TOKEN_PATTERN.test(token)) return reply.code(400).send(craftRefusal(400, 'Invalid token'))
      reply.header('x-robots-tag', 'none')
    }
    if (options.schemaToken !== undefined) {
      const bearer = bearerOf(request.headers)
      // No bearer falls back to the public schema, which is off by default.
      if (bearer === undefined) return reply.code(400).send(craftRefusal(400, 'Missing Authorization header'))
      if (bearer !== options.schemaToken) return reply.code(400).send(craftRefusal(400, 'Invalid Authorization header'))
    }
  })

  await app.register(mercurius, {
    schema,
    path: EMBEDDED_CMS_PATH,
    graphiql: false,
    // Craft answers every GraphQL error with 200; `data` only when execution began.
    errorFormatter: (execution, context) => {
      const { response } = mercurius.defaultErrorFormatter(execution, context)
      return { statusCode: 200, response: response.data == null ? { errors: response.errors } : response }
    },
    context: (request): CmsContext => {
      const token = tokenOf(request.headers, request.query)
      // An unknown or expired token (the site's default one among them) is ignored: the live content.
      return { token: typeof token === 'string' && store.isPreviewToken(token) ? token : undefined }
    },
  })
}
