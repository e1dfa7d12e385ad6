import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { SHUTDOWN_DRAIN_MS } from '../../../shared/constants.ts'
import { isPayloadUrl } from '../../../shared/payload.ts'
import { sendErrorPage } from '../../http/error-answers.ts'
import { CATCH_ALL_ROUTE } from '../../routes/catch-all.ts'

const POLL_MS = 25

declare module 'fastify' {
  interface FastifyInstance {
    drain: Drain
  }
}

/**
 * Shutdown without cutting pages short. A page in flight still needs the
 * gateway itself (the renderer fetches `_payload.json`, the embedded CMS is
 * called over loopback), so the listener stays open while draining: new
 * pages get 503 and /readyz on the internal listener says so, everything else
 * is still served, and only when the pages in flight are done does the app
 * close.
 */
export class Drain {
  draining = false
  inFlight = 0

  /** Stops taking new pages; resolves when the pages in flight are done, or after `deadlineMs`. */
  async settle(deadlineMs: number): Promise<number> {
    this.draining = true
    const until = Date.now() + deadlineMs
    while (this.inFlight > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    return this.inFlight
  }
}

function isPage(request: FastifyRequest): boolean {
  if (request.routeOptions.url !== CATCH_ALL_ROUTE) return false
  return !isPayloadUrl(request.url)
}

async function drain(app: FastifyInstance): Promise<void> {
  const drain = new Drain()
  app.decorate('drain', drain)
  // A callback hook: an async one costs a promise and a microtask on every request.
  app.addHook('onRequest', (request, reply, done) => {
    if (!isPage(request)) return done()
    // Refused, not failed: the Dutch page without an error in the log (the reply is sent, so the request goes no further).
    if (drain.draining) return void sendErrorPage(reply.header('connection', 'close'), 503)
    drain.inFlight++
    reply.raw.once('close', () => drain.inFlight--)
    done()
  })
}

/** The gateway's close: the pages in flight first (at most SHUTDOWN_DRAIN_MS), then the app and its listeners. */
export async function drainThenClose(app: FastifyInstance): Promise<void> {
  const left = await app.drain.settle(SHUTDOWN_DRAIN_MS)
  app.log.info({ pagesInFlight: left }, left === 0 ? 'pages in flight done; closing' : 'drain deadline passed; closing')
  await app.close()
}

export default fp(drain, { name: 'drain' })
