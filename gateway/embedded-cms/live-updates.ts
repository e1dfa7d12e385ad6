import { type FSWatcher, watch } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { buildSchema } from 'graphql'
import mercurius from 'mercurius'
import { LIVE_UPDATES_PATH } from '../../shared/constants.ts'
import { ContentStore } from './content-store.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by @fastify/websocket, which mercurius registers for subscriptions: the request is a WebSocket upgrade. */
    ws: boolean
  }
}

export const ENTRY_CHANGED_TOPIC = 'ENTRY_CHANGED'
const RELOAD_DEBOUNCE_MS = 100

export interface LiveUpdatesOptions {
  store: ContentStore
  contentDir: string
}

const schema = buildSchema(`
scalar DateTime
type EntryChange { id: ID, section: String, slug: String, dateUpdated: DateTime }
type Query { ping: String }
type Subscription { entryChanged: EntryChange }
`)

/**
 * Live preview updates from the embedded CMS: a graphql-transport-ws
 * endpoint that tells editors holding a valid preview token which entries
 * changed, as the content files change. It carries ids, never content.
 * Public, as editors' browsers connect to it, so it answers nothing but
 * WebSocket upgrades: mercurius's plain GET and POST would be an open
 * GraphQL endpoint (introspection included) for anyone.
 */
export async function liveUpdates(app: FastifyInstance, options: LiveUpdatesOptions): Promise<void> {
  const { store } = options
  await app.register(mercurius, {
    schema,
    path: LIVE_UPDATES_PATH,
    graphiql: false,
    resolvers: {
      Query: { ping: () => 'pong' },
      Subscription: {
        entryChanged: {
          subscribe: (_root: unknown, _args: unknown, context: { pubsub: { subscribe: (topic: string) => unknown } }) =>
            context.pubsub.subscribe(ENTRY_CHANGED_TOPIC),
        },
      },
    },
    subscription: {
      onConnect: ({ payload }: { payload?: { token?: unknown } }) => {
        const token = payload?.token
        return typeof token === 'string' && store.isPreviewToken(token) ? { token } : false
      },
    },
  })
  // After mercurius, whose WebSocket plugin sets request.ws in a hook of its own.
  app.addHook('onRequest', async (request, reply) => {
    if (!request.ws) return reply.callNotFound()
  })

  let timer: NodeJS.Timeout | undefined
  const reload = (): void => {
    try {
      const changed = store.replace(ContentStore.readDirectory(options.contentDir))
      for (const entry of changed) {
        void app.graphql.pubsub.publish({
          topic: ENTRY_CHANGED_TOPIC,
          payload: { entryChanged: { id: entry.id, section: entry.section, slug: entry.slug, dateUpdated: entry.dateUpdated } },
        })
      }
      if (changed.length > 0) app.log.info({ changed: changed.map((entry) => entry.id) }, 'content changed')
    } catch (error) {
      app.log.warn({ err: error }, 'content files could not be read; keeping the previous content')
    }
  }
  let watcher: FSWatcher | undefined
  try {
    watcher = watch(options.contentDir, () => {
      clearTimeout(timer)
      timer = setTimeout(reload, RELOAD_DEBOUNCE_MS)
    })
  } catch (error) {
    app.log.warn({ err: error }, 'cannot watch the content files; live updates off')
  }
  app.addHook('onClose', async () => {
    clearTimeout(timer)
    watcher?.close()
  })
}
