import t from 'tap'
import { purge as sendPurge } from '../helpers/http.ts'
import { startSystem } from '../helpers/system.ts'

const SECRET = 'purge-secret-for-tests'
const LIMIT = 30
// Behind one proxy (as nginx sends it): X-Forwarded-For is the client's address.
const system = await startSystem({ PURGE_SECRET: SECRET, PURGE_RATE_LIMIT: String(LIMIT), TRUST_PROXY: '1' })
t.teardown(() => system.close())

const purge = async (client: string, secret: string | undefined) => {
  const answer = await sendPurge(system.url, '{"tags":["jobs"]}', { secret, headers: { 'x-forwarded-for': client } })
  const json = answer.json as { errors?: { extensions: { code: string } }[] }
  return { status: answer.status, code: json.errors?.[0]?.extensions.code, retryAfter: answer.headers['retry-after'] }
}

t.test('failures lock out their own address only; successful purges never count', async (t) => {
  const guesser = '198.51.100.7'
  for (let i = 0; i < LIMIT; i++) {
    const answer = await purge(guesser, i % 2 === 0 ? `guess-${i}` : undefined)
    if (answer.status !== 401 || answer.code !== 'UNAUTHORIZED') return t.fail(`failure ${i + 1}: ${answer.status} ${answer.code}, expected 401`)
  }
  const locked = await purge(guesser, 'one-more-guess')
  t.equal(locked.status, 429, `after ${LIMIT} wrong or missing secrets: 429`)
  t.equal(locked.code, 'RATE_LIMITED')
  t.ok(Number(locked.retryAfter) > 0, 'with Retry-After')
  const lockedRight = await purge(guesser, SECRET)
  t.equal(lockedRight.status, 429, 'the locked address gets 429 even with the right secret: the answer tells no right guess from a wrong one')

  t.equal((await purge('203.0.113.20', SECRET)).status, 200, 'the webhook from another address still purges')
  const webhook: number[] = []
  for (let i = 0; i < LIMIT + 10; i++) webhook.push((await purge('203.0.113.21', SECRET)).status)
  t.same(new Set(webhook), new Set([200]), `${LIMIT + 10} good purges from one address: all 200`)
})
