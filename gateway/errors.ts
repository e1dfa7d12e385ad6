import createError, { type FastifyErrorConstructor } from '@fastify/error'

/** Every error the gateway answers with, each with a stable code and status; BAD_REQUEST is the renderer's too. */
export { BadRequestError } from '../shared/errors.ts'
export const OperationNotAllowedError = createError('OPERATION_NOT_ALLOWED', 'This operation is not allowed: %s', 400)
export const VariableNotDeclaredError = createError('VARIABLE_NOT_DECLARED', 'The operation %s does not declare the variable $%s', 400)
export const VariablesTooDeepError = createError('VARIABLES_TOO_DEEP', 'variables may be nested at most %s levels deep', 400)
export const VariablesTooLargeError = createError('VARIABLES_TOO_LARGE', 'variables may be at most %s bytes of JSON', 400)
export const PurgeSecretError = createError('UNAUTHORIZED', 'Wrong or missing purge secret', 401)
export const PurgeLockedError = createError('RATE_LIMITED', 'Too many failed purges; try again in %s seconds', 429)
export const PreviewLimitError = createError('RATE_LIMITED', 'Too many preview requests; try again in %s s', 429)
export const CrossOriginError = createError('CROSS_ORIGIN_REFUSED', 'Only a page of this site may ask for this', 403)
export const LiveSocketsPerClientError = createError('RATE_LIMITED', 'At most %s live preview connections per client', 429)
export const LiveSocketsFullError = createError('LIVE_SOCKETS_FULL', 'No more live preview connections can be taken now', 503)
/** A client has spent its work budget (CLIENT_WORK_BUDGET): renders and CMS calls no cache answered. */
export const WorkBudgetError = createError('RATE_LIMITED', 'Too many requests that no cache answers; try again in %s s', 429)
export const BuildNotFoundError = createError('BUILD_NOT_FOUND', 'Unknown build', 404)
export const UnsupportedMediaTypeError = createError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json', 415)
export const RendererUnavailableError = createError('RENDERER_UNAVAILABLE', 'No renderer is available', 503)
/** Every renderer had RENDER_CONCURRENCY renders in flight for all of ADMISSION_QUEUE_MS (or the queue was full). */
export const RendererBusyError = createError('RENDERER_BUSY', 'Every renderer is busy', 503)
/** A load another gateway held (through the shared tier) failed with an error of its own insides: callers learn nothing of it. */
export const SharedLoadFailedError = createError('INTERNAL_SERVER_ERROR', 'Internal server error', 500)

/** A render given up because its renderer was found hung meanwhile (a probe went unanswered, a render timed out): tried on the next member, or the stored page stands in. */
export class RendererDownError extends Error {
  readonly code = 'RENDERER_DOWN'
}

/** An answer at a renderer's address that no renderer sent: that member is skipped, and the render goes to the next. */
export class NotARendererError extends Error {
  override name = 'NotARendererError'
}

/**
 * A renderer of another render protocol (another release's, during a roll or after one service was rolled back):
 * it is sent no render while it says so, and the render goes to a renderer of this gateway's version.
 */
export class RenderProtocolMismatchError extends Error {
  override name = 'RenderProtocolMismatchError'
  readonly code = 'RENDER_PROTOCOL_MISMATCH'
}

/**
 * What the content service did (or would not be asked to do): the only 5xx
 * whose message reaches API callers, and the only error whose code and
 * message travel to other gateways through the shared tier, since each says
 * what the CMS did and nothing of the gateway. Made by `upstreamError`, never
 * thrown by itself.
 */
export abstract class UpstreamError extends Error {
  declare readonly code: string
  declare readonly statusCode: number
}

type UpstreamErrorConstructor<C extends string, SC extends number> = FastifyErrorConstructor<UpstreamError & { code: C; statusCode: SC }>

/** Each upstream error by its code, for the gateways an error reaches through the shared tier (errorFromDescription). */
const upstreamErrorByCode = new Map<string, UpstreamErrorConstructor<string, number>>()

/** A coded error (as createError makes them) that is an UpstreamError. */
function upstreamError<C extends string, SC extends number>(code: C, message: string, statusCode: SC): UpstreamErrorConstructor<C, SC> {
  const Coded = createError(code, message, statusCode, UpstreamError as unknown as ErrorConstructor) as UpstreamErrorConstructor<C, SC>
  upstreamErrorByCode.set(code, Coded)
  return Coded
}

export const UpstreamUnavailableError = upstreamError('UPSTREAM_UNAVAILABLE', 'The content service cannot be reached', 502)
export const UpstreamTimeoutError = upstreamError('UPSTREAM_TIMEOUT', 'The content service did not answer in time', 504)
export const UpstreamBadResponseError = upstreamError('UPSTREAM_BAD_RESPONSE', 'The content service gave an unusable answer', 502)
export const UpstreamStatusError = upstreamError('UPSTREAM_STATUS', 'The content service answered with status %s', 502)
/** An operation Craft's schema would refuse (found at start-up): its pages fail without asking Craft. */
export const OperationUnavailableError = upstreamError('UPSTREAM_SCHEMA_MISMATCH', 'The content service cannot answer %s with its current schema', 502)
/** CMS_CONCURRENCY calls were in flight to the CMS for all of ADMISSION_QUEUE_MS (or the queue was full): no call was made. */
export const UpstreamBusyError = upstreamError('UPSTREAM_BUSY', 'The content service is busy; try again shortly', 503)

/** What may travel to another gateway of a failed load (through Redis): an upstream error's code and message; of anything else nothing. */
export function describeUpstreamError(error: unknown): { code: string; message: string } | undefined {
  return error instanceof UpstreamError ? { code: error.code, message: error.message } : undefined
}

/** The error another gateway's load ended in, from its description: the same upstream error, or one that says only that it failed. */
export function errorFromDescription(described: unknown): Error {
  const { code, message } = (described ?? {}) as { code?: unknown; message?: unknown }
  const Coded = typeof code === 'string' ? upstreamErrorByCode.get(code) : undefined
  if (!Coded) return new SharedLoadFailedError()
  const error = new Coded()
  // The message as the holder's error had it (UPSTREAM_STATUS names the status); it is one of these errors' own.
  if (typeof message === 'string') error.message = message
  return error
}
