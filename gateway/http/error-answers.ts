import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { API_PATH, PRIVATE_NO_STORE, REQUEST_ID_HEADER } from '../../shared/constants.ts'
import { isPayloadUrl } from '../../shared/payload.ts'
import { errorBody } from '../../shared/errors.ts'
import { defaultContentSecurityPolicy } from './content-security.ts'
import { fallbackPage } from './fallback-page.ts'
import { oversizedStatus, targetTooLong } from './request-size.ts'


/** Whether a request's error is for a visitor (the Dutch page) rather than for a program (JSON): a GET or HEAD of anything but /api and payloads. */
export function forVisitor(method: string | undefined, url: string | undefined): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false
  const path = (url ?? '').split('?', 1)[0] ?? ''
  return !(path === API_PATH || path.startsWith(`${API_PATH}/`) || isPayloadUrl(path))
}

/** The gateway's own Dutch page of a status, never stored. */
export function sendErrorPage(reply: FastifyReply, statusCode: number): FastifyReply {
  return reply.code(statusCode).header('cache-control', PRIVATE_NO_STORE).type('text/html; charset=utf-8').send(fallbackPage(statusCode))
}

/** An error answer through Fastify: the Dutch page for a visitor, the JSON error for a program. */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  statusCode: number,
  message: string,
  code: string,
  visitor = forVisitor(request.method, request.url),
): FastifyReply {
  if (visitor) return sendErrorPage(reply, statusCode)
  return reply.code(statusCode).header('cache-control', PRIVATE_NO_STORE).type('application/json; charset=utf-8').send(errorBody(message, code))
}

const URI_TOO_LONG = { message: 'The address is too long', code: 'URI_TOO_LONG' }
const HEADERS_TOO_LARGE = { statusCode: 431, message: 'The request headers are too large', code: 'HEADERS_TOO_LARGE' }

/** What the HTTP parser refuses, before there is a request: by Node's error code. */
const CLIENT_ERRORS: Record<string, { statusCode: number; message: string; code: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { statusCode: 408, message: 'The request took too long to arrive', code: 'REQUEST_TIMEOUT' },
  HPE_HEADER_OVERFLOW: HEADERS_TOO_LARGE,
}
const BAD_REQUEST = { statusCode: 400, message: 'The request is not valid HTTP', code: 'BAD_REQUEST' }

/**
 * Fastify's clientErrorHandler: the request could not even be read (headers
 * too large, too slow, not HTTP). Answered on the socket in the gateway's
 * JSON shape with the headers every answer has, then the connection closes.
 */
export function clientErrorHandler(this: { log: FastifyBaseLogger }, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const { statusCode, message, code } = CLIENT_ERRORS[error.code ?? ''] ?? BAD_REQUEST
  this.log.info({ code: error.code, statusCode }, 'unreadable request refused')
  // An answer already under way on this socket must not be corrupted by a second one.
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true
  if (socket.writable && !answering) {
    const body = JSON.stringify(errorBody(message, code))
    socket.write(
      [
        `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? 'Error'}`,
        'content-type: application/json; charset=utf-8',
        `content-length: ${Buffer.byteLength(body)}`,
        `cache-control: ${PRIVATE_NO_STORE}`,
        `content-security-policy: ${defaultContentSecurityPolicy(false, [])}`,
        'x-content-type-options: nosniff',
        'connection: close',
        '',
        body,
      ].join('\r\n'),
    )
    lingerThenClose(socket)
    return
  }
  socket.destroy(error)
}

/** How long a refused client may go on sending before its socket is cut. */
const LINGER_MS = 2000

/**
 * Half-closes after the answer and reads whatever the client is still
 * sending until it closes (or LINGER_MS passes). Closing with unread bytes
 * would send a reset, and Linux then drops the unsent answer with it: a
 * client still writing its 80 KB of headers would never see its 431.
 */
function lingerThenClose(socket: Socket): void {
  const cut = setTimeout(() => socket.destroy(), LINGER_MS)
  cut.unref()
  socket.on('close', () => clearTimeout(cut))
  socket.on('error', () => socket.destroy())
  socket.end()
  socket.resume()
}

/** Fastify's frameworkErrors: a URL the router cannot decode (`/%ff`, a bare `%`), in the gateway's own shapes; 414 when it is too long as well. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const statusCode = targetTooLong(request.url) ? 414 : error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400
  request.log.info({ code: error.code, statusCode }, 'unroutable request refused')
  // No hook runs for a request the router could not read: the headers every answer has are set here.
  reply
    .header('content-security-policy', defaultContentSecurityPolicy(forVisitor(request.method, request.url), request.server.config.frameAncestors))
    .header('x-content-type-options', 'nosniff')
    .header(REQUEST_ID_HEADER, request.id)
  if (statusCode === 414) void sendError(request, reply, 414, URI_TOO_LONG.message, URI_TOO_LONG.code)
  else void sendError(request, reply, statusCode, 'The address is not valid', 'BAD_REQUEST')
}

/**
 * The gateway's first onRequest hook: a target too long gets 414 (the Dutch
 * page for a visitor, the JSON error for /api and payloads), headers too
 * large 431, before any other hook or route reads them. Node's parser lets
 * such requests through up to MAX_REQUEST_HEAD_BYTES (http/request-size.ts).
 * The policy and request id come from the onSend hooks.
 */
export function refuseOversizedRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const statusCode = oversizedStatus(request.raw)
  if (statusCode === undefined) {
    done()
    return
  }
  request.log.info({ statusCode, urlLength: request.url.length }, 'oversized request refused')
  reply.header('x-content-type-options', 'nosniff').header('connection', 'close')
  if (statusCode === 414) void sendError(request, reply, 414, URI_TOO_LONG.message, URI_TOO_LONG.code)
  else void sendError(request, reply, 431, HEADERS_TOO_LARGE.message, HEADERS_TOO_LARGE.code, false)
}
