import { type RequestListener, createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'

/** A loopback port that was free a moment ago. */
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
