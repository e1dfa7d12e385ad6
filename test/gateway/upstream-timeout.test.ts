import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'
import { createOperations } from '../../shared/operations.ts'
import { startFaultySystem } from '../helpers/fault-upstream.ts'

// Long enough that an answering upstream is never taken for a slow one on a loaded machine; a hold waits it out.
const TIMEOUT_MS = 1000

t.test('an upstream past the timeout: 504, and stale-if-error once something is cached', async (t) => {
  const { system, upstream, untilTeardown: never } = await startFaultySystem(t, { UPSTREAM_HEADERS_TIMEOUT_MS: String(TIMEOUT_MS), CACHE_TTL_MS: '0', CACHE_SWR_MS: '0' })
  const body = JSON.stringify({ query: createOperations(DEFAULT_SITE_HANDLE).ServiceList, variables: { site: DEFAULT_SITE_HANDLE } })
  const post = async () => {
    const response = await request(`${system.url}/api`, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
    return { status: response.statusCode, cache: response.headers['x-cache'], json: (await response.body.json()) as Record<string, any> }
  }
  upstream.behave = () => ({ kind: 'hold', until: never })
  const started = performance.now()
  const timedOut = await post()
  const elapsed = performance.now() - started
  t.equal(timedOut.status, 504)
  // A bound on behaviour, not a benchmark: the configured timeout and a wide margin (undici checks it on a clock of about a second).
  t.ok(elapsed < TIMEOUT_MS * 3 + 1500, `504 after ${Math.round(elapsed)} ms with a ${TIMEOUT_MS} ms upstream timeout`)
  t.equal(timedOut.json.errors[0].extensions.code, 'UPSTREAM_TIMEOUT')

  upstream.behave = () => ({ kind: 'pass' })
  const fresh = await post()
  t.equal(fresh.status, 200)
  upstream.behave = () => ({ kind: 'hold', until: never })
  const stale = await post()
  t.equal(stale.status, 200, 'the expired entry stands in for the slow upstream')
  t.equal(stale.cache, 'STALE')
})
