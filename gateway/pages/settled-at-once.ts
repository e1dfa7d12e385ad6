export const PENDING: unique symbol = Symbol('pending')

/**
 * The value of a promise that settles without waiting for I/O (an answer
 * from a cache), or PENDING when it waits on the network: setImmediate runs
 * only once every queued microtask has. A rejection counts as settled.
 */
export function settledAtOnce<T>(promise: Promise<T>): Promise<T | undefined | typeof PENDING> {
  return Promise.race([
    promise.catch(() => undefined),
    new Promise<typeof PENDING>((resolve) => setImmediate(resolve, PENDING)),
  ])
}
