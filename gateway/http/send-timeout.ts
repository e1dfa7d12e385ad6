import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/**
 * Cuts the connection of a client that stopped reading: once an answer has
 * begun, a socket whose unsent bytes made no progress for `timeoutMs` is
 * destroyed, and with it the answer it held. A socket's idle timer restarts
 * on every write the kernel takes, so a slow reader is never cut; waiting for
 * a render, or a stream with nothing to send, is not the client's doing and
 * is left alone. Keep-alive idleness stays Node's (keepAliveTimeout), which
 * sets the same timer once the answer is finished.
 */
export function cutStalledSends(server: Server, timeoutMs: number): void {
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    request.socket.setTimeout(timeoutMs)
    response.on('timeout', cutIfStalled)
  })
}

/** A listener of the answer's 'timeout' keeps Node from destroying the socket itself: this decides. */
function cutIfStalled(this: ServerResponse, socket: Socket): void {
  if (this.headersSent && socket.writableLength > 0) socket.destroy()
}
