import t from 'tap'
import { queryCacheKey, stableStringify } from '../../shared/cache-key.ts'

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
