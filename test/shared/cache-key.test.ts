import t from 'tap'
import { KEY_MEMO_MAX_BYTES, KEY_MEMO_MAX_VARIABLES_CHARS, keyMemoBytes, queryCacheKey, stableStringify } from '../../shared/cache-key.ts'

t.test('a 10-character key that ignores variable order', async (t) => {
  const a = queryCacheKey('query A { x }', { site: 'havenborg', slug: 'x', nested: { b: 1, a: 2 } })
  const b = queryCacheKey('query A { x }', { nested: { a: 2, b: 1 }, slug: 'x', site: 'havenborg' })
  t.equal(a.length, 10)
  t.match(a, /^[A-Za-z0-9_-]{10}$/)
  t.equal(a, b, 'same key whatever the key order')
})

t.test('query, variables and client id each separate keys', async (t) => {
  const base = queryCacheKey('query A { x }', { slug: 'x' }, 'default')
  t.not(queryCacheKey('query B { x }', { slug: 'x' }, 'default'), base, 'other query')
  t.not(queryCacheKey('query A { x }', { slug: 'y' }, 'default'), base, 'other variables')
  t.not(queryCacheKey('query A { x }', { slug: 'x' }, 'preview'), base, 'other client')
  t.not(queryCacheKey('query A { x }', { slug: ['x'] }, 'default'), base, 'a list is not its element')
  t.not(queryCacheKey('query A { x }', {}, 'default'), queryCacheKey('query A { x }', { slug: null }, 'default'), 'null is a value')
})

t.test('stable JSON', async (t) => {
  t.equal(stableStringify({ b: [1, { d: 1, c: 2 }], a: 'x' }), '{"a":"x","b":[1,{"c":2,"d":1}]}')
})

t.test('stable JSON of a value nested 100,000 deep: no stack overflow', async (t) => {
  let deep: unknown = 'bottom'
  for (let i = 0; i < 100_000; i++) deep = i % 2 === 0 ? { z: deep, a: i } : [deep]
  const text = stableStringify(deep)
  t.ok(text.startsWith('[{"a":99998,"z":[{"a":99996,'), 'keys sorted at every depth')
  t.ok(text.includes('"bottom"'))
})

t.test('the key memo stays within its bytes however many distinct keys it sees', async (t) => {
  const query = `query Big { ${'field '.repeat(200)}}`
  const slug = 'x'.repeat(KEY_MEMO_MAX_VARIABLES_CHARS - 40)
  const keys = new Set<string>()
  for (let i = 0; i < 5000; i++) keys.add(queryCacheKey(query, { slug: `${slug}${i}` }))
  t.equal(keys.size, 5000, 'every key distinct')
  const bytes = keyMemoBytes()
  t.ok(bytes > KEY_MEMO_MAX_BYTES / 2, `the memo is used (${bytes} bytes)`)
  t.ok(bytes <= KEY_MEMO_MAX_BYTES, `and bounded (${bytes} <= ${KEY_MEMO_MAX_BYTES})`)
  t.equal(queryCacheKey(query, { slug: `${slug}4999` }), [...keys].at(-1), 'a remembered key is the same key')

  const padded = 'p'.repeat(60_000)
  const first = queryCacheKey('query A { x }', { slug: 'x', padding: `${padded}1` })
  t.equal(keyMemoBytes(), bytes, 'long variables are hashed, never remembered')
  t.equal(queryCacheKey('query A { x }', { padding: `${padded}1`, slug: 'x' }), first, 'and still give the same key')
})
