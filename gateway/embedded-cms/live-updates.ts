import { EventEmitter, on } from 'node:events'
import { type FSWatcher, watch } from 'node:fs'
import type { Server } from 'node:http'
import websocket from '@fastify/websocket'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { GraphQLError, buildSchema } from 'graphql'
import { handleProtocols, makeServer } from 'graphql-ws'
import { LIVE_UPDATES_PATH } from '../../shared/constants.ts'
import { LiveSocketsFullError, LiveSocketsPerClientError } from '../errors.ts'
import { sendError } from '../http/error-answers.ts'
import { ContentStore } from './content-store.ts'
import { LiveSocketCount, type LiveSocket, keepAlive, routeUpgrades, serveGraphqlWs } from './live-sockets.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by @fastify/websocket: the request is a WebSocket upgrade. */
    ws: boolean
  }
}

const RELOAD_DEBOUNCE_MS = 100
/** An editor's messages are a connection_init with a token and a subscription: a few hundred bytes. */
const LIVE_MAX_MESSAGE_BYTES = 16 * 1024
/** How long a closing socket waits for the peer's close frame before it is cut (ws waits 30 s). */
const LIVE_CLOSE_TIMEOUT_MS = 1000
/** What a refused client is told to wait; a browser's WebSocket never sees it, graphql-ws's backoff decides. */
const LIVE_RETRY_AFTER_S = 10

export interface LiveSocketOptions {
  /** graphql-ws's connectionInitWaitTimeout: a socket without connection_init by then is closed with 4408. */
  initTimeoutMs: number
  pingIntervalMs: number
  maxSubscriptionsPerSocket: number
  maxSocketsPerClient: number
  maxSockets: number
}

export interface LiveUpdatesOptions {
  store: ContentStore
  contentDir: string
  sockets: LiveSocketOptions
}

interface EntryChange {
  id: string
  section: string
  slug: string | null
  dateUpdated: string
}

const schema = buildSchema(`
scalar DateTime
type EntryChange { id: ID, section: String, slug: String, dateUpdated: DateTime }
type Query { ping: String }
type Subscription { entryChanged: EntryChange }
`)

/** Every change as it happens, for one subscription; ends (and stops listening) when the subscription does. */
async function* entryChanges(changes: EventEmitter): AsyncGenerator<{ entryChanged: EntryChange }> {
  for await (const [change] of on(changes, 'change')) yield { entryChanged: change as EntryChange }
}

/**
 * Live preview updates from the embedded CMS: a graphql-transport-ws
 * endpoint (graphql-ws) that tells editors holding a valid preview token
 * which entries changed, as the content files change. It carries ids, never
 * content. Public, as editors' browsers connect to it, so it answers nothing
 * but WebSocket upgrades, and every socket is bounded: per client and in all,
 * in subscriptions, in the time it may take to say who it is (4408), and
 * by pings that cut off a peer that is gone. A token that is not a preview
 * token is refused with 4403, which the site's client does not retry.
 */
export async function liveUpdates(app: FastifyInstance, options: LiveUpdatesOptions): Promise<void> {
  const { store, sockets: limits } = options
  const changes = new EventEmitter()
  changes.setMaxListeners(0)

  const upgrades = new EventEmitter()
  await app.register(websocket, {
    options: {
      // @fastify/websocket listens for upgrades here; routeUpgrades passes on those of LIVE_UPDATES_PATH only.
      server: upgrades as unknown as Server,
      maxPayload: LIVE_MAX_MESSAGE_BYTES,
      closeTimeout: LIVE_CLOSE_TIMEOUT_MS,
      handleProtocols,
    } as Record<string, unknown>,
  })
  const stopRouting = routeUpgrades(app.server, LIVE_UPDATES_PATH, upgrades)

  const server = makeServer<Record<string, unknown> | undefined, { request: FastifyRequest }>({
    schema,
    connectionInitWaitTimeout: limits.initTimeoutMs,
    roots: {
      query: { ping: () => 'pong' },
      // graphql-js calls a root field that is a function for the events' source, then reads each event's entryChanged.
      subscription: { entryChanged: () => entryChanges(changes) },
    },
    onConnect: ({ connectionParams }) => {
      const token = connectionParams?.token
      return typeof token === 'string' && store.isPreviewToken(token)
    },
    onSubscribe: (ctx) => {
      // The subscription being asked for is already among them.
      if (Object.keys(ctx.subscriptions).length > limits.maxSubscriptionsPerSocket) {
        return [new GraphQLError(`At most ${limits.maxSubscriptionsPerSocket} subscriptions per connection`, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } })]
      }
    },
  })

  const open = new LiveSocketCount({ perClient: limits.maxSocketsPerClient, total: limits.maxSockets })
  app.addHook('onRequest', async (request, reply) => {
    if (!request.ws) return reply.callNotFound()
    const admitted = open.admit(request.client, request.raw.socket)
    if (admitted === 'admitted') return
    const refusal = admitted === 'client' ? new LiveSocketsPerClientError(limits.maxSocketsPerClient) : new LiveSocketsFullError()
    request.log.info({ client: request.client, open: open.total, code: refusal.code }, 'live socket refused')
    return sendError(request, reply.header('retry-after', String(LIVE_RETRY_AFTER_S)), refusal.statusCode ?? 429, refusal.message, refusal.code)
  })
  app.get(LIVE_UPDATES_PATH, { websocket: true }, (socket: LiveSocket, request) => {
    keepAlive(socket, limits.pingIntervalMs)
    serveGraphqlWs(server, socket, { request }, request.log)
  })

  let timer: NodeJS.Timeout | undefined
  const reload = (): void => {
    try {
      const changed = store.replace(ContentStore.readDirectory(options.contentDir))
      for (const entry of changed) changes.emit('change', { id: entry.id, section: entry.section, slug: entry.slug, dateUpdated: entry.dateUpdated })
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
    stopRouting()
    clearTimeout(timer)
    watcher?.close()
  })
}
