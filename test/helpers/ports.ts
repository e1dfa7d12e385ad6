import { type RequestListener, createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'

/**
 * A loopback port that was free a moment ago: anything may take it before it
 * is bound (an outgoing connection's ephemeral port, another test's
 * listener). Bind port 0 and read the port where the service allows it;
 * where a port must be named before its listener exists, bind it inside
 * retryOnAddressInUse.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/**
 * An address where nothing listens, for a service that must be down: a
 * privileged port no test binds and no port 0 is ever given (the discard
 * service's, never run here), so a connection is refused however many
 * listeners other tests open meanwhile. A port picked free is not: any
 * listener may be given it a moment later.
 */
export const REFUSED_URL = 'http://127.0.0.1:9'

/** A plain HTTP server on a loopback port, closed when the test ends; resolves to its port. */
export async function listenOnLoopback(t: { teardown: (fn: () => unknown) => void }, handler: RequestListener): Promise<number> {
  const server = createHttpServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const address = server.address()
  return typeof address === 'object' && address ? address.port : 0
}

/** Whether an error (or the output of a process that exited) says a port was taken. */
export function isAddressInUse(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  return (error as { code?: unknown }).code === 'EADDRINUSE' || /EADDRINUSE/.test(String((error as { message?: unknown }).message))
}

/** How often a start is tried on fresh ports. */
const ATTEMPTS = 5

/**
 * Runs a start that picks its ports itself (freePort) and binds them later,
 * again with fresh ports while it fails because one was taken in between;
 * the start must close whatever it opened before it throws.
 */
export async function retryOnAddressInUse<T>(start: () => Promise<T>, attempts = ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start()
    } catch (error) {
      if (!isAddressInUse(error) || attempt >= attempts) throw error
    }
  }
}
