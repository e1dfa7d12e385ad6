import t from 'tap'
import { LINK_SCHEMES, cleanLinkField, linkHref, logDroppedLinks, refusedRichTextHref } from '../../shared/link-href.ts'

/**
 * The one check of where a link from the CMS may go, unit by unit; what the
 * pages and payloads show of it is in test/renderer/link-fields.test.tsx.
 */
t.test('linkHref: paths, fragments and the allowed schemes, nothing else', async (t) => {
  t.equal(linkHref('  https://www.afm.nl/x  '), 'https://www.afm.nl/x', 'kept, trimmed')
  t.equal(linkHref('HTTP://example.nl'), 'HTTP://example.nl', 'a scheme in capitals is the same scheme')
  t.equal(linkHref('/kantoren'), '/kantoren', 'a path of the site')
  t.equal(linkHref('#inhoud'), '#inhoud', 'a fragment')
  t.equal(linkHref(''), undefined, 'empty')
  t.equal(linkHref('   '), undefined, 'only spaces')
  t.equal(linkHref('https://x.nl/\ta'), undefined, 'a tab inside')
  t.equal(linkHref('/\t/evil.example'), undefined, 'a tab that would make //')
  t.equal(linkHref('https://x.nl/\u007f'), undefined, 'DEL inside')
  t.equal(linkHref('//evil.example'), undefined, 'protocol-relative')
  t.equal(linkHref('/\\evil.example'), undefined, 'a backslash that browsers read as /')
  t.equal(linkHref('javascript:alert(1)'), undefined)
  t.equal(linkHref('data:text/html,x'), undefined)
  t.equal(linkHref('vbscript:x'), undefined)
  t.equal(linkHref('mailto:a@b.nl'), undefined, 'a web field takes no mailto')
  t.equal(linkHref('mailto:a@b.nl', LINK_SCHEMES), 'mailto:a@b.nl', 'where mail is meant it is kept')
  t.equal(linkHref('x javascript:alert(1)'), undefined, 'a scheme counts only at the start')
  t.equal(linkHref('see https://x.nl'), undefined, 'an allowed scheme later in the text is no address')
  t.equal(linkHref(42), undefined, 'not a string')
})

t.test('cleanLinkField: a field kept as it is, cleaned, or null; null and undefined pass', async (t) => {
  const drops: unknown[][] = []
  const dropped = (field: string, value: unknown) => drops.push([field, value])
  const same = 'https://www.kvk.nl/zoeken'
  t.equal(cleanLinkField('kvkRegisterUrl', same, dropped), same, 'the same value back')
  t.equal(cleanLinkField('kvkRegisterUrl', ` ${same} `, dropped), same, 'trimmed')
  t.equal(cleanLinkField('kvkRegisterUrl', 'data:text/html,x', dropped), null, 'refused: null')
  t.equal(cleanLinkField('kvkRegisterUrl', null, dropped), null)
  t.equal(cleanLinkField('kvkRegisterUrl', undefined, dropped), undefined)
  t.equal(cleanLinkField('mainNavigation', null, dropped), null, 'a menu that is null stays null')
  t.equal(cleanLinkField('mainNavigation', undefined, dropped), undefined)
  t.same(drops, [['kvkRegisterUrl', 'data:text/html,x']], 'only the refused address was reported')
  t.equal(cleanLinkField('mainNavigation', 'not a list', dropped), null, 'a menu that is no list')
})

t.test('cleanLinkField: a menu keeps its links that may be links, the same list when all may', async (t) => {
  const drops: unknown[][] = []
  const dropped = (field: string, value: unknown) => drops.push([field, value])
  const menu = [
    { label: 'Home', url: '/' },
    { label: 'Bel', url: 'tel:+31881234500' },
  ]
  t.equal(cleanLinkField('mainNavigation', menu, dropped), menu, 'nothing to drop: the same list')
  t.same(drops, [], 'nothing reported')
  const hostile = [...menu, { label: 'X', url: 'javascript:alert(1)' }, null, 'text', { label: 'no url' }]
  t.same(cleanLinkField('footerNavigation', hostile, dropped), menu, 'the links that may not be links are left out')
  t.same(
    drops,
    [
      ['footerNavigation', 'javascript:alert(1)'],
      ['footerNavigation', undefined],
      ['footerNavigation', undefined],
      ['footerNavigation', undefined],
    ],
    'each left out once',
  )
})

t.test('logDroppedLinks: each field and address once, the address cut to 200 characters', async (t) => {
  const warnings: Record<string, unknown>[] = []
  const drop = logDroppedLinks((fields) => warnings.push(fields))
  drop('website', 'data:x')
  drop('website', 'data:x')
  drop('mapUrl', 'data:x')
  t.same(warnings, [{ field: 'website', address: 'data:x' }, { field: 'mapUrl', address: 'data:x' }], 'the second of the same is not logged')
  drop('website', `data:${'a'.repeat(300)}`)
  t.equal((warnings.at(-1)?.address as string).length, 200, 'cut to 200 characters')
  drop('website', null)
  t.equal(warnings.at(-1)?.address, 'null', 'a value that is no string is logged as text')
})

t.test('logDroppedLinks: past 200 remembered drops it forgets them all and logs again', async (t) => {
  const warnings: Record<string, unknown>[] = []
  const drop = logDroppedLinks((fields) => warnings.push(fields))
  for (let n = 0; n < 200; n++) drop('website', `data:${n}`)
  drop('website', 'data:0')
  t.equal(warnings.length, 200, 'all 200 remembered: the first is not logged again')
  drop('website', 'data:200')
  t.equal(warnings.length, 201, 'the 201st is logged, and the memory starts over')
  drop('website', 'data:0')
  t.equal(warnings.length, 202, 'so the first is logged again')
  drop('website', 'data:200')
  t.equal(warnings.length, 202, 'while the one logged after the clearing is still remembered')
})

t.test('refusedRichTextHref: a scheme a link may not have, or another host, as a browser reads it; relative addresses and allowed ones pass', async (t) => {
  for (const href of ['javascript:x', ' JaVaScRiPt:x', 'java\tscript:x', 'java\nscript:x', '\u0000javascript:x', 'data:text/html,x', 'vbscript:x', 'ftp://x.example/', '//x.example/', '/\\x.example/', '\\\\x.example/', '/\t/x.example/', 'a+b.c-d:x']) {
    t.ok(refusedRichTextHref(href), JSON.stringify(href))
  }
  for (const href of ['https://www.kifid.nl/', 'HTTP://x.example/', 'mailto:a@b.nl', 'tel:+31881234599', '/kantoren', '#top', 'pagina', 'pagina?p=2', '?p=2', './a:b', '', ' ', '\\kantoren', '/\tkantoren']) {
    t.notOk(refusedRichTextHref(href), JSON.stringify(href))
  }
})

t.test('cleanLinkField without a listener: a field or a menu link is dropped all the same', async (t) => {
  t.equal(cleanLinkField('website', 'javascript:alert(1)'), null)
  t.same(cleanLinkField('mainNavigation', [{ label: 'a', url: '/a' }, { label: 'b', url: 'data:text/html,x' }, null]), [{ label: 'a', url: '/a' }])
})
