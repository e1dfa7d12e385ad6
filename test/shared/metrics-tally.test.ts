import Fastify from 'fastify'
import { Counter, Registry } from 'prom-client'
import t from 'tap'
import { boundBy, readMetrics, serveMetrics, tally } from '../../shared/metrics.ts'

const valueOf = (text: string, line: string): number | undefined => {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `))
  return found === undefined ? undefined : Number(found.slice(line.length + 1))
}

t.test('a tally is added to its counter when the registry is read, once', async (t) => {
  const registry = new Registry()
  const hits = new Counter({ name: 'hits_total', help: 'hits', labelNames: ['kind'] as const, registers: [registry] })
  const plain = tally(registry, hits, { kind: 'plain' })
  const other = tally(registry, hits, { kind: 'other' })
  for (let i = 0; i < 5; i++) plain.inc()
  other.inc()
  hits.inc({ kind: 'plain' }, 10)
  const first = await readMetrics(registry)
  t.equal(valueOf(first, 'hits_total{kind="plain"}'), 15, 'the tally and the direct counts together')
  t.equal(valueOf(first, 'hits_total{kind="other"}'), 1)
  const again = await readMetrics(registry)
  t.equal(valueOf(again, 'hits_total{kind="plain"}'), 15, 'a second read adds nothing twice')
  plain.inc()
  t.equal(valueOf(await readMetrics(registry), 'hits_total{kind="plain"}'), 16, 'counts after a read are added at the next')
})

t.test('GET /metrics reads the tallies', async (t) => {
  const registry = new Registry()
  const hits = new Counter({ name: 'served_total', help: 'served', registers: [registry] })
  const served = tally(registry, hits, {})
  const app = Fastify()
  serveMetrics(app, registry)
  t.teardown(() => app.close())
  served.inc()
  served.inc()
  const answer = await app.inject('/metrics')
  t.equal(valueOf(answer.body, 'served_total'), 2)
})

t.test('boundBy makes each key\'s child once', async (t) => {
  const made: string[] = []
  const childOf = boundBy((key: string) => {
    made.push(key)
    return { key }
  })
  t.equal(childOf('a'), childOf('a'), 'the same child for the same key')
  t.not(childOf('a'), childOf('b'))
  t.same(made, ['a', 'b'], 'made once per key')
})
