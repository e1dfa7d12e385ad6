import t from 'tap'
import { UpstreamError, UpstreamStatusError } from '../../gateway/errors.ts'
import { nextEvent, startRedisServer, startTierPair } from '../helpers/redis.ts'

/**
 * A load that fails on the gateway holding the lock reaches the gateways
 * waiting on it through Redis. What travels is only a coded upstream error's
 * code and message: the holder's own insides (a TypeError's text, a path,
 * a stack) never reach another gateway's API callers.
 */
const redis = await startRedisServer()
t.teardown(() => redis.close())

const { holder, waiter } = await startTierPair(t, redis, { lockMs: 10_000, keyPrefix: 'errors-test' })

const neverFresh = { isFresh: () => false, accepts: () => true }

/** The holder's load fails with `failure` once the waiter waits on its lock; what the waiter gets. */
async function failedOnHolder(key: string, failure: Error): Promise<unknown> {
  const waiting = nextEvent(waiter, 'waiting', `the waiter waits on ${key}`, (waited) => waited === key)
  const locked = nextEvent(holder, 'locked', `the holder locks ${key}`, (lockedKey) => lockedKey === key)
  const held = holder.loadOnce(key, neverFresh, async () => {
    await waiting
    throw failure
  })
  await locked
  const waited = waiter.loadOnce(key, neverFresh, async () => {
    throw new Error('the waiter must not load by itself')
  })
  await t.rejects(held, failure, 'the holder gets its own error')
  return waited.then(
    () => t.fail('the waiter got an answer'),
    (error: unknown) => error,
  )
}

t.test("an error of the holder's insides reaches the waiter as an internal error, without its message", async (t) => {
  const secret = "Cannot read properties of undefined (reading 'entries') at /srv/gateway/internal.ts:42"
  const error = (await failedOnHolder('insides', new TypeError(secret))) as Error & { code?: string; statusCode?: number }
  t.notOk(String(error.message).includes('entries'), `the message says nothing of the holder: "${error.message}"`)
  t.notOk(error instanceof UpstreamError, 'not labelled a content-service error')
  t.equal(error.statusCode, 500)
  t.equal(error.code, 'INTERNAL_SERVER_ERROR')
})

t.test('a coded upstream error reaches the waiter as the same error, with its message', async (t) => {
  const error = (await failedOnHolder('upstream', new UpstreamStatusError(503))) as Error & { code?: string; statusCode?: number }
  t.ok(error instanceof UpstreamStatusError, 'the same coded error')
  t.ok(error instanceof UpstreamError, 'an upstream error')
  t.equal(error.message, 'The content service answered with status 503')
  t.equal(error.statusCode, 502)
  t.equal(error.code, 'UPSTREAM_STATUS')
})
