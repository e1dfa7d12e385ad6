import t from 'tap'
import pino from 'pino'
import { RenderFlights } from '../../../gateway/cache/render-flights.ts'
import { NOT_FOUND_PAGE_KEY, NOT_FOUND_RENDER_URL } from '../../../gateway/pages/not-found-page.ts'
import { PageVisit } from '../../../gateway/pages/page-visit.ts'

/** The visit's own state changes (gateway/pages/page-visit.ts), without a gateway. */
function visitOf(path = '/kantoren') {
  const ended: (() => void)[] = []
  const origin = { id: 'r1', log: pino({ level: 'silent' }), address: path, client: '127.0.0.1', userAgent: undefined, livePreview: false, onEnd: (done: () => void) => ended.push(done) }
  const context = { token: undefined, preview: false, source: 'site' as const, cookie: 'none' as const, malformed: false }
  const visit = new PageVisit(origin, { url: { rawPath: path, path, search: '' }, context, useCache: true, storable: true, ticket: 0 })
  return { visit, end: () => ended.forEach((done) => done()) }
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

t.test('a visit keyed by its address becomes the stored 404 page', async (t) => {
  const { visit } = visitOf()
  t.equal(visit.cacheKey, '/kantoren')
  visit.becomeNotFound({ path: '/kantoren', fullPath: '/kantoren', message: 'weg', suggestion: null })
  t.equal(visit.cacheKey, NOT_FOUND_PAGE_KEY)
  t.same(visit.url, NOT_FOUND_RENDER_URL)
  t.equal(visit.notFound?.message, 'weg')
})

t.test('a leading visit settles its flight: as it says, else `again` when its answer ends without a word', async (t) => {
  const flights = new RenderFlights()
  const settled: string[] = []
  flights.on('settled', (_key, outcome) => settled.push(outcome))
  const told = visitOf()
  const lead = flights.lead(told.visit.cacheKey)
  if (!lead) throw new Error('no lead')
  told.visit.lead(lead)
  told.visit.abandonRender()
  t.same(settled, ['over'], 'abandoned: the waiters look again')
  told.end()
  await turn()
  t.same(settled, ['over'], 'settled once')

  const silent = visitOf()
  const second = flights.lead(silent.visit.cacheKey)
  if (!second) throw new Error('no lead')
  silent.visit.lead(second)
  silent.end()
  await turn()
  t.same(settled, ['over', 'again'], 'an answer that ended without saying: the waiters may wait for a new render')

  const storing = visitOf()
  const third = flights.lead(storing.visit.cacheKey)
  if (!third) throw new Error('no lead')
  storing.visit.lead(third)
  storing.visit.startStoring()
  storing.end()
  await turn()
  t.same(settled, ['over', 'again'], 'a page being stored settles when stored, not when its answer closed')
})

t.test('the lock across gateways is given up with the flight, or at once without one', async (t) => {
  const released: string[] = []
  const lock = (name: string) => ({ store: () => undefined, release: () => released.push(name) })
  const alone = visitOf()
  alone.visit.holdSharedLock(lock('alone'))
  t.same(released, ['alone'], 'no flight to settle it: released at once')

  const flights = new RenderFlights()
  const { visit } = visitOf()
  const lead = flights.lead(visit.cacheKey)
  if (!lead) throw new Error('no lead')
  visit.lead(lead)
  visit.holdSharedLock(lock('led'))
  t.same(released, ['alone'], 'held while the render runs')
  visit.settleFlight({ kind: 'over' })
  t.same(released, ['alone', 'led'])
  t.ok(visit.flight?.settled)
})
