// A stand-in service run by test/shared/run-server.test.ts through runServer,
// as the gateway and the renderer are. CLOSE says what its close step does:
// ok, throws, hangs (until the deadline), or waits (for `finish` on stdin).
// `throw` and `reject` on stdin make it fail outside any request.
import Fastify from 'fastify'
import { ConfigError } from '../../shared/errors.ts'
import { loggingOptions } from '../../shared/logging.ts'
import { runServer } from '../../shared/run-server.ts'

const closeStep = process.env.CLOSE ?? 'ok'
let finishClose = (): void => {}

process.stdin.setEncoding('utf8').on('data', (chunk: string) => {
  for (const command of chunk.split('\n')) {
    if (command === 'throw') setImmediate(() => { throw new Error('an uncaught boom') })
    if (command === 'reject') void Promise.reject(new Error('an unhandled boom'))
    if (command === 'finish') finishClose()
  }
})

await runServer({
  service: 'stand-in',
  loadConfig() {
    if (process.env.BAD_SETTING) throw new ConfigError(`BAD_SETTING="${process.env.BAD_SETTING}" is not a setting`)
    return { host: process.env.HOST ?? '127.0.0.1', port: 0 }
  },
  build: async () => Fastify(loggingOptions({ service: 'stand-in', level: 'info', format: 'json' })),
  async close(app) {
    app.log.info('close steps started')
    if (closeStep === 'throws') throw new Error('the close step broke')
    if (closeStep === 'hangs') await new Promise(() => {})
    if (closeStep === 'waits') await new Promise<void>((resolve) => (finishClose = resolve))
    await app.close()
  },
  ...(process.env.DEADLINE_MS ? { deadlineMs: Number(process.env.DEADLINE_MS) } : {}),
})
