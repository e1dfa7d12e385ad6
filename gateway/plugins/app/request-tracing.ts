import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { REQUEST_ID_HEADER } from '../../../shared/constants.ts'

/** Every answer names its request (the id in every log line of it); a client that leaves before the answer is logged. */
async function requestTracing(app: FastifyInstance): Promise<void> {
  // Hooks on every answer take a callback: an async one costs a promise and a microtask per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header(REQUEST_ID_HEADER, request.id)
    done(null, payload)
  })
  app.addHook('onRequestAbort', async (request) => {
    request.log.info('the client went away before the answer')
  })
}

export default fp(requestTracing, { name: 'request-tracing' })
