import t from 'tap'
import { ConcurrencyGate, type GateOutcome } from '../../gateway/admission/concurrency-gate.ts'
import { WorkBudget } from '../../gateway/admission/work-budget.ts'

t.test('a client budget refills over its window, lets work under way run into debt, and forgets the client unseen longest', async (t) => {
  let now = 0
  const budget = new WorkBudget({ units: 10, windowMs: 10_000, maxClients: 2, now: () => now })
  for (let n = 0; n < 10; n++) t.equal(budget.take('a'), undefined)
  t.equal(budget.take('a'), 1, 'over budget: a unit comes back in a second')
  t.equal(budget.balance('a'), 0, 'a refusal takes nothing')
  budget.charge('a', 3)
  t.equal(budget.balance('a'), -3, 'CMS calls of a render under way are charged all the same')
  t.equal(budget.refused('a'), 4, 'and paid back before the next admission')
  budget.charge('a', 100)
  t.equal(budget.balance('a'), -10, 'debt is bounded by one budget')
  now = 11_000
  t.equal(budget.balance('a'), 1)
  t.equal(budget.take('b'), undefined, 'another client has its own')
  budget.take('c')
  t.equal(budget.size, 2, 'at most maxClients remembered')
  t.equal(budget.balance('a'), 10, 'the one unseen longest was forgotten')
})

t.test('a gate admits up to its limit, queues up to its length for at most queueMs, then refuses', async (t) => {
  const outcomes: GateOutcome[] = []
  const gate = new ConcurrencyGate({ limit: () => 1, queueMs: 20, queueLength: 1, refusal: () => new Error('busy'), onOutcome: (outcome) => outcomes.push(outcome) })
  const first = await gate.enter()
  const second = gate.enter()
  await t.rejects(gate.enter(), /busy/, 'the queue is full: refused at once')
  await t.rejects(second, /busy/, 'the wait ran out')
  t.equal(gate.waiting, 0)
  const third = gate.enter()
  first()
  first()
  const released = await third
  t.equal(gate.inFlight, 1, 'a release given twice frees one slot')
  released()
  t.equal(gate.inFlight, 0)
  t.same(outcomes, ['admitted', 'refused', 'refused', 'queued'])
  t.equal(await gate.run(async () => gate.inFlight), 1, 'run holds a slot while its work runs')
  t.equal(gate.inFlight, 0)
})

t.test("one timer for a gate's queue: each waiter is refused after its own wait, not when its elder's would have run out", async (t) => {
  const queueMs = 100
  const gate = new ConcurrencyGate({ limit: () => 1, queueMs, queueLength: 2, refusal: () => new Error('busy') })
  const held = await gate.enter()
  const elder = gate.enter()
  // The younger comes later than the elder by a gap: a refusal on the elder's deadline would cut its wait short by that much.
  await new Promise((resolve) => setTimeout(resolve, queueMs / 2))
  const youngerFrom = performance.now()
  const younger = gate.enter()
  held()
  const admitted = await elder
  await t.rejects(younger, /busy/, 'its wait ran out')
  t.ok(performance.now() - youngerFrom >= queueMs - 1, 'not before its own queueMs')
  t.equal(gate.waiting, 0)
  admitted()
})
