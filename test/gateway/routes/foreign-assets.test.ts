import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Registry } from 'prom-client'
import t from 'tap'
import { foreignAssets } from '../../../gateway/routes/foreign-assets.ts'

// The bundle files of another build without a service: what is asked of the renderers and what is remembered.
// test/gateway/foreign-assets.test.ts and foreign-bundle-files.test.ts see the same through a gateway.

/** A gateway as foreignAssets sees it: renderers that have none of the files and count the questions, and a budget that takes each unit. */
function stubGateway(): { app: FastifyInstance; asked: string[]; units: number } {
  const seen = { asked: [] as string[], units: 0 }
  const app = {
    metrics: { registry: new Registry() },
    admission: { budget: { take: () => void seen.units++ } },
    renderers: { fetchAsset: async (path: string) => void seen.asked.push(path) },
  } as unknown as FastifyInstance
  return Object.assign(seen, { app })
}

const request = { client: 'one client' } as unknown as FastifyRequest
const reply = {} as FastifyReply

t.test('misses are remembered up to their bound, the oldest forgotten first: a flood of new names cannot grow the memory', async (t) => {
  const gateway = stubGateway()
  const asset = foreignAssets(gateway.app, 2)
  const [a, b, c] = ['/assets/app-AAAAAAAA.js', '/assets/app-BBBBBBBB.js', '/assets/app-CCCCCCCC.js']
  for (const path of [a, b, a, b]) t.equal(await asset(path, request, reply), undefined, `${path}: no file`)
  t.same(gateway.asked, [a, b], 'two misses remembered: each asked once')
  await asset(c, request, reply)
  await asset(a, request, reply)
  t.same(gateway.asked, [a, b, c, a], 'a third pushed out the oldest, which is asked again')
  t.equal(gateway.units, 4, "each round of questions is a unit of the client's budget; a remembered miss none")
})

t.test('a name no build gives is never asked, and costs nothing', async (t) => {
  const gateway = stubGateway()
  const asset = foreignAssets(gateway.app)
  for (const path of ['/assets/app-lowercas.js', '/assets/../app-AAAAAAAA.js', '/assets/app-AAAAAAAA.js?x']) t.equal(await asset(path, request, reply), undefined, path)
  t.same([gateway.asked, gateway.units], [[], 0])
})
