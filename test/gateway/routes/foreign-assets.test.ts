import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Registry } from 'prom-client'
import t from 'tap'
import { foreignAssets } from '../../../gateway/routes/foreign-assets.ts'

// The bundle files of another build without a service: what is asked of the renderers and what is remembered.
// test/gateway/foreign-assets.test.ts and foreign-bundle-files.test.ts see the same through a gateway.

/** What the renderers of the stub have: one file of another build. */
const THEIR_FILE = '/assets/styles-0123456789.css'
const THEIR_ASSET = { body: Buffer.from('a{}'), contentType: 'text/css' }

/**
 * A gateway as foreignAssets sees it: renderers that have THEIR_FILE alone and count the questions (held while
 * `hold` is set, until `release`), a budget that takes each unit, and the gateway's metrics.
 */
function stubGateway() {
  const registry = new Registry()
  const held: (() => void)[] = []
  const seen = {
    asked: [] as string[],
    units: 0,
    hold: false,
    release: () => held.splice(0).forEach((go) => go()),
    /** foreign_assets_total by result. */
    counted: async (): Promise<Record<string, number>> =>
      Object.fromEntries(((await registry.getSingleMetric('foreign_assets_total')?.get())?.values ?? []).map(({ labels, value }) => [String(labels.result), value])),
  }
  const app = {
    metrics: { registry },
    admission: { budget: { take: () => void seen.units++ } },
    renderers: {
      fetchAsset: async (path: string) => {
        seen.asked.push(path)
        if (seen.hold) await new Promise<void>((resolve) => held.push(resolve))
        return path === THEIR_FILE ? THEIR_ASSET : undefined
      },
    },
  } as unknown as FastifyInstance
  return Object.assign(seen, { app })
}

/** A reply that records what is sent. */
function recordingReply(): FastifyReply & { sent?: unknown; headers: Record<string, string> } {
  const reply = {
    headers: {} as Record<string, string>,
    sent: undefined as unknown,
    header: (name: string, value: string) => ((reply.headers[name] = value), reply),
    type: (value: string) => ((reply.headers['content-type'] = value), reply),
    send: (body: unknown) => ((reply.sent = body), reply),
  }
  return reply as unknown as FastifyReply & { sent?: unknown; headers: Record<string, string> }
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
  t.same(await gateway.counted(), { missing: 6 }, 'each miss counted, remembered or not')
})

t.test("a file the renderers have is served as the build's own, kept, and counted", async (t) => {
  const gateway = stubGateway()
  const asset = foreignAssets(gateway.app)
  for (const round of [1, 2]) {
    const reply = recordingReply()
    t.equal(await asset(THEIR_FILE, request, reply), reply, `asked ${round}: answered`)
    t.same([reply.sent, reply.headers], [THEIR_ASSET.body, { 'cache-control': 'public, max-age=31536000, immutable', 'content-type': 'text/css' }])
  }
  t.same([gateway.asked, gateway.units], [[THEIR_FILE], 1], 'kept: the renderers asked once')
  t.same(await gateway.counted(), { fetched: 1, kept: 1 })
})

t.test('one round of questions per name however many ask at once, paid by the first', async (t) => {
  const gateway = stubGateway()
  const asset = foreignAssets(gateway.app)
  gateway.hold = true
  const asking = Promise.all([1, 2, 3].map(() => asset('/assets/chunk-ABCDEFGH.js', request, reply)))
  await new Promise((resolve) => setImmediate(resolve))
  gateway.release()
  t.same(await asking, [undefined, undefined, undefined])
  t.same([gateway.asked, gateway.units], [['/assets/chunk-ABCDEFGH.js'], 1])
})

t.test('past two rounds at once and eight waiting, a name is refused (RENDERER_BUSY) and counted busy', async (t) => {
  const gateway = stubGateway()
  const asset = foreignAssets(gateway.app)
  gateway.hold = true
  const names = Array.from({ length: 11 }, (_, index) => `/assets/chunk-ABCDEF${'ABCDEFGHIJK'[index]}A.js`)
  const answers = names.map((name) => asset(name, request, reply).then(() => 'answered', (error: { code?: string }) => error.code))
  t.equal(await answers[10], 'RENDERER_BUSY', 'the eleventh')
  t.same(gateway.asked, names.slice(0, 2), 'two asked at once')
  t.same(await gateway.counted(), { busy: 1 })
  gateway.hold = false
  gateway.release()
  t.same(await Promise.all(answers.slice(0, 10)), Array(10).fill('answered'), 'the others, each in its turn')
})

t.test('a name no build gives is never asked, and costs nothing', async (t) => {
  const gateway = stubGateway()
  const asset = foreignAssets(gateway.app)
  for (const path of ['/assets/app-lowercas.js', '/assets/../app-AAAAAAAA.js', '/assets/app-AAAAAAAA.js?x', '/x/assets/app-AAAAAAAA.js', '/assets/styles-0123.css', '/assets/styles-ghijklmnop.css']) t.equal(await asset(path, request, reply), undefined, path)
  t.same([gateway.asked, gateway.units], [[], 0])
})
