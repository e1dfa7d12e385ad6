import { EventEmitter } from 'node:events'
import { type IncomingMessage, type Server, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import { CloseCode, type Server as GraphqlWsServer } from 'graphql-ws'

/** What the gateway uses of a `ws` WebSocket (the package ships no types of its own). */
export interface LiveSocket {
  readonly protocol: string
  readonly readyState: number
  readonly OPEN: number
  send(data: string, callback: (error?: Error) => void): void
  close(code?: number, reason?: string): void
  terminate(): void
  ping(): void
  on(event: 'message', listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): void
  on(event: 'pong' | 'error', listener: (...args: unknown[]) => void): void
  once(event: 'close', listener: (code: number, reason: Buffer) => void): void
}

export interface LiveSocketLimits {
  /** Open sockets of one client (request.client). */
  perClient: number
  /** Open sockets of this gateway. */
  total: number
}

/**
 * The open live sockets of one gateway, per client and in all. A socket
 * holds its place from the upgrade request until its TCP connection closes,
 * whatever ends it (a refused handshake, a close, a dead peer cut off).
 */
export class LiveSocketCount {
  private readonly perClient = new Map<string, number>()
  private open = 0

  constructor(private readonly limits: LiveSocketLimits) {}

  get total(): number {
    return this.open
  }

  /** Takes a place for `client`'s socket, released when `connection` closes; or says which bound refused it. */
  admit(client: string, connection: Duplex): 'admitted' | 'client' | 'total' {
    const ofClient = this.perClient.get(client) ?? 0
    if (ofClient >= this.limits.perClient) return 'client'
    if (this.open >= this.limits.total) return 'total'
    // Gone before its upgrade was looked at: its 'close' has passed, and nothing will be upgraded on it.
    if (connection.closed) return 'admitted'
    this.perClient.set(client, ofClient + 1)
    this.open++
    connection.once('close', () => {
      this.open--
      const left = (this.perClient.get(client) ?? 1) - 1
      if (left > 0) this.perClient.set(client, left)
      else this.perClient.delete(client)
    })
    return 'admitted'
  }
}

const pathOf = (url: string | undefined): string => (url ?? '/').split('?', 1)[0] ?? '/'

/**
 * Node hands every request with an `Upgrade` header to the server's
 * 'upgrade' listeners, past its own timeouts and keep-alive handling, and
 * @fastify/websocket answers one it does not upgrade but leaves its socket
 * open for ever. So only upgrades of `path` go to `websockets` (the emitter
 * @fastify/websocket listens on); any other request with an Upgrade header is
 * an ordinary request, answered as such, after which its connection closes.
 */
export function routeUpgrades(server: Server, path: string, websockets: EventEmitter): () => void {
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (pathOf(request.url) === path) {
      websockets.emit('upgrade', request, socket, head)
      return
    }
    const response = new ServerResponse(request)
    response.shouldKeepAlive = false
    response.assignSocket(socket as Parameters<ServerResponse['assignSocket']>[0])
    response.once('finish', () => socket.end())
    socket.once('close', () => response.detachSocket(socket as Parameters<ServerResponse['detachSocket']>[0]))
    server.emit('request', request, response)
  }
  server.on('upgrade', onUpgrade)
  return () => server.off('upgrade', onUpgrade)
}

/**
 * WebSocket pings every `intervalMs`; a peer that has not answered the last
 * one by the next is cut off (browsers answer pings by themselves). The pings
 * also keep a proxy's read timeout from ending a live socket.
 */
export function keepAlive(socket: LiveSocket, intervalMs: number): void {
  let answered = true
  socket.on('pong', () => (answered = true))
  const timer = setInterval(() => {
    if (!answered) return socket.terminate()
    answered = false
    socket.ping()
  }, intervalMs)
  socket.once('close', () => clearInterval(timer))
}

/** Serves one socket with a graphql-ws server (graphql-ws's own adapter logs to the console and reads NODE_ENV). */
export function serveGraphqlWs<Extra>(server: GraphqlWsServer<Extra>, socket: LiveSocket, extra: Extra, log: FastifyBaseLogger): void {
  const closed = server.opened(
    {
      protocol: socket.protocol,
      send: (data) =>
        new Promise<void>((resolve, reject) => {
          if (socket.readyState !== socket.OPEN) return resolve()
          socket.send(data, (error) => (error ? reject(error) : resolve()))
        }),
      close: (code, reason) => socket.close(code, reason),
      onMessage: (handle) =>
        socket.on('message', (data) => {
          handle(String(data)).catch((error: unknown) => {
            log.warn({ err: error }, 'live socket message failed')
            socket.close(CloseCode.InternalServerError, 'Internal server error')
          })
        }),
    },
    extra,
  )
  socket.once('close', (code, reason) => {
    closed(code, reason.toString()).catch((error: unknown) => log.warn({ err: error }, 'live socket close failed'))
  })
}
