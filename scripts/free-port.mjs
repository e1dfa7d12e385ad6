import { createServer } from 'node:net'

/** A loopback port that was free a moment ago: anything may take it before it is bound (see withFreePorts). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** Whether a process's output says a port it was given was taken. */
export const saysAddressInUse = (output) => /EADDRINUSE|Address already in use/.test(output)

/**
 * For servers that must be told their ports (or each other's) before they
 * bind them: runs `start(ports)` with `count` ports picked free, and again
 * with fresh ones while it fails with code EADDRINUSE (something took one in
 * between). `start` stops whatever it started before it throws.
 */
export async function withFreePorts(count, start, attempts = 5) {
  for (let attempt = 1; ; attempt++) {
    const ports = await Promise.all(Array.from({ length: count }, () => freePort()))
    try {
      return await start(ports)
    } catch (error) {
      if (error?.code !== 'EADDRINUSE' || attempt >= attempts) throw error
    }
  }
}
