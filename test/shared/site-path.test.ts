import t from 'tap'
import { MAX_SITE_PATH_LENGTH, splitSitePath } from '../../shared/site-path.ts'

t.test('a plain site path is split into path, query and decoded path', async (t) => {
  t.same(splitSitePath('/over-ons'), { rawPath: '/over-ons', search: '', path: '/over-ons' })
  t.same(splitSitePath('/actueel?pagina=2'), { rawPath: '/actueel', search: '?pagina=2', path: '/actueel' })
  t.same(splitSitePath('/caf%C3%A9'), { rawPath: '/caf%C3%A9', search: '', path: '/café' })
  t.ok(splitSitePath(`/${'a'.repeat(MAX_SITE_PATH_LENGTH - 1)}`), 'as long as allowed')
})

t.test('anything else is not a site path', async (t) => {
  const refused = [
    '',
    'over-ons',
    'http://evil.example/x',
    '//evil.example/x',
    '/\\evil.example/x',
    '/a\\b',
    '/a%5Cb',
    '/a%5cb',
    '/a\tb',
    '/a\u0000b',
    '/a%00b',
    '/a%0Ab',
    '/a%1fb',
    '/a%7Fb',
    '/%ff',
    '/a%',
    '/a%zz',
    '/a?b=%E0%A4%A',
    `/${'a'.repeat(MAX_SITE_PATH_LENGTH)}`,
  ]
  for (const url of refused) t.equal(splitSitePath(url), undefined, JSON.stringify(url))
})
