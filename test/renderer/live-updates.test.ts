import t from 'tap'
import { isFatalClose, retryDelay } from '../../renderer/client/live-updates.ts'

t.test('retry backoff: exponential from 1 s plus 300–3000 ms jitter', async (t) => {
  t.equal(retryDelay(0, () => 0), 1300)
  t.equal(retryDelay(0, () => 1), 4000)
  t.equal(retryDelay(3, () => 0), 8300)
})

t.test('the fatal close codes end the connection, others retry', async (t) => {
  for (const code of [4400, 4401, 4403, 4406, 4409, 4429, 4500, 4005, 4004]) t.ok(isFatalClose({ code }), `${code} is fatal`)
  for (const code of [1006, 1011, 4000]) t.notOk(isFatalClose({ code }), `${code} retries`)
  t.notOk(isFatalClose(new Error('network')), 'an error without a code retries')
})
