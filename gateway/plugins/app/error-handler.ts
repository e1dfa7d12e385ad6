import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { UpstreamError } from '../../errors.ts'
import { errorAnswerOf, errorBody } from '../../../shared/errors.ts'
import { sendError } from '../../http/error-answers.ts'
import { CATCH_ALL_ROUTE, asksForPayload } from '../../routes/catch-all.ts'

/**
 * The one answer to every error thrown (the coded errors of errors.ts, and
 * Fastify's own). A page's visitor gets the Dutch page whatever went wrong; a
 * payload or /api caller a JSON error. Elsewhere a 5xx is the Dutch page for a
 * visitor, and a 4xx JSON for whoever sent the request wrong (a file route's
 * refusal, an unknown build). Of a 5xx only the content service's coded errors
 * say what happened: anything else could show the gateway's insides.
 */
export function answerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { statusCode, code, message } = errorAnswerOf(error, request.log, (told) => told instanceof UpstreamError)
  const page = request.routeOptions.url === CATCH_ALL_ROUTE ? !asksForPayload(request.url) : undefined
  if (statusCode >= 500 || page) return sendError(request, reply, statusCode, message, code, page)
  return reply.code(statusCode).send(errorBody(message, code))
}

async function errorHandler(app: FastifyInstance): Promise<void> {
  app.setErrorHandler(answerError)
  // Every GET is a page (routes/catch-all.ts): what is left is another method on an address that has none.
  app.setNotFoundHandler((request, reply) => sendError(request, reply, 404, 'Not found', 'NOT_FOUND'))
}

export default fp(errorHandler, { name: 'error-handler' })
