import createError from '@fastify/error'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { PRIVATE_NO_STORE } from '../shared/constants.ts'
import { errorAnswerOf, errorBody } from '../shared/errors.ts'
import { RENDER_DATA_UNKNOWN, RENDER_DATA_UNKNOWN_STATUS, RENDER_PROTOCOL_MISMATCH, RENDER_PROTOCOL_MISMATCH_STATUS } from '../shared/render-protocol/index.ts'

/** The renderer's own errors, each with a stable code and status (BAD_REQUEST is in shared/errors.ts); only the gateway, or a stranger, reads them. */
export const UnsignedRenderError = createError('FORBIDDEN', 'The render request is not signed by the gateway', 403)
export const NotFoundError = createError('NOT_FOUND', 'Not found', 404)
/** A reference to render data this renderer does not keep (never had it, evicted, restarted): the gateway sends the body instead. */
export const RenderDataUnknownError = createError(RENDER_DATA_UNKNOWN, 'The render data this reference names is not kept here', RENDER_DATA_UNKNOWN_STATUS)
/** A render request of another render protocol (a gateway of another release): refused before anything else is read. */
export const RenderProtocolMismatchError = createError(RENDER_PROTOCOL_MISMATCH, 'The render request speaks render protocol %s; this renderer speaks %s', RENDER_PROTOCOL_MISMATCH_STATUS)

/** No payload from the gateway (unreachable, or an answer that is none): the page becomes its 502 error page. */
export class GatewayUnavailableError extends Error {
  override name = 'GatewayUnavailableError'
  readonly statusCode = 502
}

/**
 * The renderer's one error answer (its error handler, and its router's for
 * what it cannot route): JSON in the gateway's shape, the coded error's
 * status, code and message; anything else a 500 that says no more.
 */
export function sendErrorAnswer(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // A protocol mismatch is the one 5xx that says what it is: it names no internals, only the versions, for the operator.
  const { statusCode, code, message } = errorAnswerOf(error, request.log, (refused) => refused.code === RENDER_PROTOCOL_MISMATCH)
  return reply.code(statusCode).header('cache-control', PRIVATE_NO_STORE).send(errorBody(message, code))
}
