import t from 'tap'
import { FULL_LOAD_FALLBACK_MIN_MS } from '../../shared/constants.ts'
import { fullLoadIsQuicker, recordNavigation } from '../../renderer/client/screen-preloads.ts'

/** This document's first contentful paint, as the browser would report it, at `startTime` ms. */
function paintedAt(t: { teardown(fn: () => void): void }, startTime: number | undefined): void {
  const original = performance.getEntriesByName
  performance.getEntriesByName = ((name: string) =>
    name === 'first-contentful-paint' && startTime !== undefined ? [{ startTime }] : []) as typeof performance.getEntriesByName
  t.teardown(() => {
    performance.getEntriesByName = original
    recordNavigation(0)
  })
}

t.test(`a navigation of at most ${FULL_LOAD_FALLBACK_MIN_MS} ms never sends the next ones to full loads, however quick the first paint was`, async (t) => {
  paintedAt(t, 300)
  recordNavigation(FULL_LOAD_FALLBACK_MIN_MS)
  t.notOk(fullLoadIsQuicker(), `${FULL_LOAD_FALLBACK_MIN_MS} ms after a paint at 300 ms: still client navigation`)
  recordNavigation(FULL_LOAD_FALLBACK_MIN_MS / 2)
  t.notOk(fullLoadIsQuicker(), 'half of it: client navigation')
  recordNavigation(FULL_LOAD_FALLBACK_MIN_MS + 1)
  t.ok(fullLoadIsQuicker(), 'past it and past the paint: full loads')
})

t.test('past the floor, the first paint decides', async (t) => {
  paintedAt(t, FULL_LOAD_FALLBACK_MIN_MS * 2)
  recordNavigation(FULL_LOAD_FALLBACK_MIN_MS * 2 - 1)
  t.notOk(fullLoadIsQuicker(), 'under the paint: client navigation')
  recordNavigation(FULL_LOAD_FALLBACK_MIN_MS * 2 + 1)
  t.ok(fullLoadIsQuicker(), 'over the paint: full loads')
})

t.test('no paint reported: never full loads', async (t) => {
  paintedAt(t, undefined)
  recordNavigation(60_000)
  t.notOk(fullLoadIsQuicker(), 'a minute: client navigation')
})
