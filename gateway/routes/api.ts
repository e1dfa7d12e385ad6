import type { FastifyInstance, FastifyRequest } from 'fastify'
import { API_PATH, CACHE_STATUS_HEADER } from '../../shared/constants.ts'
import { overBudget } from '../admission/admission.ts'
import { BadRequestError, UnsupportedMediaTypeError } from '../errors.ts'
import { markPrivate, resolveToken } from '../preview/tokens.ts'

interface GraphQLBody {
  query?: unknown
  variables?: unknown
  operationName?: unknown
}

/** POST /api: the allowlisted GraphQL operations of the product, with the variables they declare, cached apart from the pages. */
export async function apiRoutes(app: FastifyInstance): Promise<void> {
  const rateLimit = { max: app.config.rateLimit.apiMax, timeWindow: app.config.rateLimit.windowMs, keyGenerator: (request: FastifyRequest) => request.client }
  app.post(API_PATH, { config: { rateLimit } }, async (request, reply) => {
    if (!request.headers['content-type']?.toLowerCase().startsWith('application/json')) {
      throw new UnsupportedMediaTypeError()
    }
    const body = request.body as GraphQLBody | null
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('The body must be a JSON object')
    if (typeof body.query !== 'string' || body.query.trim() === '') throw new BadRequestError('The body has no query')
    const variables = body.variables ?? {}
    if (variables === null || typeof variables !== 'object' || Array.isArray(variables)) {
      throw new BadRequestError('variables must be an object')
    }
    if (body.operationName !== undefined && body.operationName !== null && typeof body.operationName !== 'string') {
      throw new BadRequestError('operationName must be a string')
    }
    const operation = app.content.resolve(body.query)
    const context = resolveToken(request, app.config.craftToken)
    const retryAfter = app.admission.admitWork(request, reply)
    if (retryAfter !== undefined) throw overBudget(reply, retryAfter)
    const { answer, status } = await app.content.run(operation, variables as Record<string, unknown>, context, 'api')
    reply.header(CACHE_STATUS_HEADER, status)
    if (context.preview) markPrivate(reply)
    reply.code(answer.status >= 200 && answer.status < 300 ? 200 : answer.status)
    return reply.type('application/json; charset=utf-8').send(answer.raw)
  })
}
