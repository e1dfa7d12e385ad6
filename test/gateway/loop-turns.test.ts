import { randomBytes } from 'node:crypto'
import t from 'tap'
import { request } from 'undici'
import { LoopTurns, MISSES_PER_LOOP_TURN } from '../../gateway/admission/loop-turns.ts'
import { startSystem } from '../helpers/system.ts'
import { until } from '../helpers/until.ts'

// Issue 41, finding 5: hits isolated from misses. Misses of pages go on a few per turn of the event loop, so a hit that
// arrives during a flood of misses waits for a few of them, not for every one whose data came at the same time.

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

t.test('at most perTurn go on in one turn of the loop, the rest on the next turns, in the order they came', async (t) => {
  const turns = new LoopTurns(4)
  const order: number[] = []
  const waits: Promise<void>[] = []
  for (let i = 0; i < 10; i++) {
    const turn = turns.turn()
    if (turn === undefined) order.push(i)
    else waits.push(turn.then(() => void order.push(i)))
  }
  t.same(order, [0, 1, 2, 3], 'the first four at once, without a promise')
  t.equal(turns.waiting, 6)
  await nextTurn()
  t.same(order, [0, 1, 2, 3, 4, 5, 6, 7], 'four more on the next turn')
  await nextTurn()
  t.same(order, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'the last two on the one after')
  await Promise.all(waits)
  t.same(turns.seen, { mostInOneTurn: 4, total: 10 })
  // A new turn: room again at once.
  await nextTurn()
  t.equal(turns.turn(), undefined)
  t.throws(() => new LoopTurns(0), { name: 'RangeError', message: 'perTurn must be a positive integer' })
  t.throws(() => new LoopTurns(1.5), RangeError)
  const one = new LoopTurns(1)
  t.equal(one.turn(), undefined, 'one per turn: the first at once')
  t.not(one.turn(), undefined, 'the second on the next turn')
})

t.test("a flood of page misses takes its turns: never more than a few answered in one turn of the gateway's loop", async (t) => {
  const system = await startSystem({ TRUST_PROXY: '1' })
  t.teardown(() => system.close())
  // The sitemap known, an unknown slug of a section is a miss answered with the stored 404 page without a render.
  for (const path of ['/sitemap.xml', `/actueel/${randomBytes(6).toString('hex')}`]) await (await request(`${system.url}${path}`)).body.dump()
  const seenBefore = system.gateway.missTurns.seen.total
  const statuses = await Promise.all(
    Array.from({ length: 40 }, async (_, i) => {
      const response = await request(`${system.url}/actueel/${randomBytes(6).toString('hex')}`, { headers: { 'x-forwarded-for': `198.18.0.${i + 1}` } })
      await response.body.dump()
      return response.statusCode
    }),
  )
  t.same([...new Set(statuses)], [404])
  t.equal(system.gateway.missTurns.seen.total - seenBefore, 40, 'every miss took a turn')
  t.ok(system.gateway.missTurns.seen.mostInOneTurn <= MISSES_PER_LOOP_TURN, `at most ${MISSES_PER_LOOP_TURN} in one turn`)
  const hit = await request(`${system.url}/actueel`)
  await hit.body.dump()
  const again = await request(`${system.url}/actueel`)
  await again.body.dump()
  t.equal(again.headers['x-cache'], 'HIT')
  t.equal(system.gateway.missTurns.seen.total - seenBefore, 41, 'a hit takes none (the first /actueel was a miss)')
})

t.test('a miss that finds no room waits for its turn: a hit is answered meanwhile, the miss only on its turn', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  // The sitemap known (an unknown slug is then answered with the stored 404 page), and the page the hit asks for stored right before.
  for (const path of ['/sitemap.xml', `/actueel/${randomBytes(6).toString('hex')}`, '/actueel']) await (await request(`${system.url}${path}`)).body.dump()
  // The first miss from now on finds the turn full: its turn comes when the test says.
  const turns = system.gateway.missTurns
  const original = turns.turn
  let asked = 0
  let giveTurn = (): void => undefined
  const held = new Promise<void>((resolve) => {
    giveTurn = resolve
  })
  turns.turn = () => (++asked === 1 ? held : original.call(turns))
  t.teardown(() => {
    turns.turn = original
  })
  let answered = false
  const miss = request(`${system.url}/actueel/${randomBytes(6).toString('hex')}`).then(async (response) => {
    await response.body.dump()
    answered = true
    return response.statusCode
  })
  await until(() => asked === 1, 'the miss asked for its turn')
  const hit = await request(`${system.url}/actueel`)
  await hit.body.dump()
  t.equal(hit.headers['x-cache'], 'HIT', 'a hit is answered while the miss waits')
  t.notOk(answered, 'the miss is not answered before its turn')
  giveTurn()
  t.equal(await miss, 404, 'on its turn, it is')
  t.equal(asked, 1, 'the hit asked for no turn')
})
