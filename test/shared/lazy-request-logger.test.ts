import { Writable } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import pino from 'pino'
import t from 'tap'
import { lazyRequestLogger } from '../../shared/lazy-request-logger.ts'
import { levelEnabled } from '../../shared/logging.ts'

/** A pino logger at `level` writing JSON lines into an array, and how many children it made. */
function collecting(level: string): { logger: FastifyBaseLogger; lines: Record<string, unknown>[]; children: () => number } {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>)
      done()
    },
  })
  const logger = pino({ level }, stream)
  let made = 0
  const child = logger.child
  // Called on the logger or on one of its children (which inherit this property): each keeps its own bindings.
  logger.child = function (this: typeof logger, ...args: Parameters<typeof child>) {
    made++
    return child.apply(this, args)
  } as typeof logger.child
  return { logger: logger as unknown as FastifyBaseLogger, lines, children: () => made }
}

/** pino writes synchronously into the stream, but let any queued write land first. */
const settled = () => new Promise((resolve) => setImmediate(resolve))

t.test('a request that logs nothing at an enabled level never makes a child', async (t) => {
  const { logger, lines, children } = collecting('warn')
  const log = lazyRequestLogger(logger, { requestId: 'abc' }, {})
  log.info({ x: 1 }, 'not written')
  log.debug('not written either')
  t.equal(log.level, 'warn', 'its level is the service logger\'s')
  t.equal(levelEnabled(log, 'info'), false, 'asked for its level, it answers for the service logger')
  t.equal((log as unknown as { isLevelEnabled: (level: string) => boolean }).isLevelEnabled('warn'), true)
  await settled()
  t.same(lines, [], 'no line')
  t.equal(children(), 0, 'no child made')
})

t.test('a line at an enabled level carries the request id, through one child', async (t) => {
  const { logger, lines, children } = collecting('warn')
  const log = lazyRequestLogger(logger, { requestId: 'abc' }, {})
  log.warn({ outcome: 'partial' }, 'degraded render')
  log.error(new Error('boom'), 'failed')
  await settled()
  t.equal(children(), 1, 'one child, made at the first line')
  t.equal(lines.length, 2)
  t.match(lines[0], { requestId: 'abc', outcome: 'partial', msg: 'degraded render', level: 40 })
  t.match(lines[1], { requestId: 'abc', msg: 'failed', level: 50, err: { message: 'boom' } })
})

t.test('a level set on the request logger holds for its later lines', async (t) => {
  const { logger, lines } = collecting('warn')
  const log = lazyRequestLogger(logger, { requestId: 'abc' }, {})
  log.level = 'debug'
  log.debug('now written')
  await settled()
  t.equal(log.level, 'debug')
  t.match(lines, [{ requestId: 'abc', msg: 'now written' }])
})

t.test("a route's own log level gets pino's child at once, and children of the request logger keep its bindings", async (t) => {
  const { logger, lines, children } = collecting('warn')
  const routeLevel = lazyRequestLogger(logger, { requestId: 'r1' }, { level: 'info' })
  t.equal(children(), 1)
  routeLevel.info('route line')
  const nested = lazyRequestLogger(logger, { requestId: 'r2' }, {}).child({ part: 'deferred' })
  nested.warn('nested line')
  await settled()
  t.match(lines, [
    { requestId: 'r1', msg: 'route line' },
    { requestId: 'r2', part: 'deferred', msg: 'nested line' },
  ])
})
