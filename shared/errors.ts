import createError from '@fastify/error'

/** The one shape of every JSON error the gateway and the renderer answer with (GraphQL's, as /api answers). */
export interface ErrorBody {
  errors: [{ message: string; extensions: { code: string } }]
}

export function errorBody(message: string, code: string): ErrorBody {
  return { errors: [{ message, extensions: { code } }] }
}

/** Coded errors both services throw; each service's own are in gateway/errors.ts and renderer/errors.ts. */
export const BadRequestError = createError('BAD_REQUEST', '%s', 400)
