import t from 'tap'
import { RELOAD_GUARD_MS } from '../../shared/constants.ts'
import { guardedFullLoad, mayReload } from '../../renderer/client/reload-guard.ts'

// The full-load fall-back without a browser: test/e2e/failed-navigation.test.ts sees it in Chromium.

const ORIGIN = 'https://www.havenborg.example'

/** A window's location at `href` and an empty sessionStorage, for this test; what it was asked to load. */
function windowAt(t: { teardown(fn: () => void): void }, href: string, storage: 'kept' | 'refused' = 'kept'): { assigned: string[]; reloaded: number; stored: Map<string, string> } {
  const stored = new Map<string, string>()
  const seen = { assigned: [] as string[], reloaded: 0, stored }
  const { origin, pathname, search, hash } = new URL(href)
  const location = { origin, href, pathname, search, hash, assign: (to: string) => seen.assigned.push(to), reload: () => seen.reloaded++ }
  const refuse = (): never => {
    throw new DOMException('The operation is insecure.', 'SecurityError')
  }
  const sessionStorage =
    storage === 'kept' ? { getItem: (key: string) => stored.get(key) ?? null, setItem: (key: string, value: string) => void stored.set(key, value) } : { getItem: refuse, setItem: refuse }
  for (const [name, value] of Object.entries({ location, sessionStorage })) {
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true })
    t.teardown(() => delete (globalThis as Record<string, unknown>)[name])
  }
  return seen
}

t.test('a full load of a path that starts with // goes to that path on the site, never to the host it names (issue 52, finding 4)', async (t) => {
  const seen = windowAt(t, `${ORIGIN}/kantoren`)
  for (const pathname of ['//evil.example/x', '/\\evil.example/y', '///evil.example/z']) {
    t.ok(guardedFullLoad({ pathname, search: '?a=1', hash: '#b' }), pathname)
  }
  t.same(
    seen.assigned.map((href) => new URL(href).origin),
    [ORIGIN, ORIGIN, ORIGIN],
    'each on the site',
  )
  t.equal(seen.assigned[0], `${ORIGIN}//evil.example/x?a=1#b`, 'the path, its query and its #fragment as they were')
})

t.test('the address already shown is reloaded, not assigned (an assignment with a #fragment would only scroll)', async (t) => {
  const seen = windowAt(t, `${ORIGIN}/kantoren#top`)
  t.ok(guardedFullLoad({ pathname: '/kantoren', search: '', hash: '#top' }))
  t.same([seen.assigned, seen.reloaded], [[], 1])
})

t.test(`a path is loaded whole at most once in ${RELOAD_GUARD_MS} ms`, async (t) => {
  const seen = windowAt(t, `${ORIGIN}/`)
  t.ok(guardedFullLoad({ pathname: '/kantoren', search: '', hash: '' }), 'the first time')
  t.notOk(guardedFullLoad({ pathname: '/kantoren', search: '?x', hash: '' }), 'again at once: held back')
  t.same(seen.assigned, [`${ORIGIN}/kantoren`])
  t.same([...seen.stored.keys()], ['reload-guard:/kantoren'], 'remembered under a key of its own in sessionStorage')
  const now = Date.now()
  t.notOk(mayReload('/actueel', now) && mayReload('/actueel', now + RELOAD_GUARD_MS - 1), 'within the guard: no')
  t.ok(mayReload('/actueel', now + RELOAD_GUARD_MS), 'at its end: yes')
})

t.test('without sessionStorage (refused, as in some private windows) a full load is never held back', async (t) => {
  const seen = windowAt(t, `${ORIGIN}/`, 'refused')
  t.ok(guardedFullLoad({ pathname: '/kantoren', search: '', hash: '' }))
  t.ok(guardedFullLoad({ pathname: '/kantoren', search: '', hash: '' }))
  t.same(seen.assigned, [`${ORIGIN}/kantoren`, `${ORIGIN}/kantoren`])
})
