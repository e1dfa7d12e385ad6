import createError from '@fastify/error'
import type { FastifyBaseLogger, FastifyError } from 'fastify'

/** The one shape of every JSON error the gateway and the renderer answer with (GraphQL's, as /api answers). */
export interface ErrorBody {
  errors: [{ message: string; extensions: { code: string } }]
}

export function errorBody(message: string, code: string): ErrorBody {
  return { errors: [{ message, extensions: { code } }] }
}

/**
 * What the answer to a thrown error says, the same in both services, and its
 * log line (a 5xx as an error, with the error; anything else as info). An
 * error without a status of 400 or more is a 500. Of a 5xx the message is
 * passed on only when `mayTell` says so (the gateway: the content service's
 * coded errors); anything else could show the service's insides.
 */
export function errorAnswerOf(
  error: FastifyError,
  log: FastifyBaseLogger,
  mayTell: (error: FastifyError) => boolean = () => false,
): { statusCode: number; code: string; message: string } {
  const statusCode = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500
  if (statusCode >= 500) log.error({ err: error }, 'request failed')
  else log.info({ code: error.code, statusCode }, error.message)
  const message = statusCode >= 500 && !mayTell(error) ? 'Internal server error' : error.message
  return { statusCode, code: error.code ?? 'INTERNAL_SERVER_ERROR', message }
}

/** Coded errors both services throw; each service's own are in gateway/errors.ts and renderer/errors.ts. */
export const BadRequestError = createError('BAD_REQUEST', '%s', 400)

/** A setting with a bad value: the service does not start (exit code 2, shared/run-server.ts); the message names the variable, the value and what is allowed. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}
