import t from 'tap'
import { memoisedSanitizer, sanitizeRichText, withCleanRichText } from '../../shared/rich-text-sanitizer.ts'

t.test('rich text keeps its markup and loses scripts, handlers and javascript: links', async (t) => {
  const clean = sanitizeRichText('<h1>Kop</h1><p>Tekst <a href="javascript:alert(1)" onclick="x()">link</a></p><script>alert(2)</script><img src=x onerror=alert(3)>')
  t.equal(clean, '<h2>Kop</h2><p>Tekst <a>link</a></p>')
})

t.test('every rich text field at any depth is cleaned; what needed no change is the same object', async (t) => {
  const untouched = { title: '<b>not rich text</b>', items: [{ intro: 'x' }] }
  const data = { page: { entry: { text: '<p>ok</p><script>x</script>', title: 'Titel' } }, list: untouched, jobs: [{ whatYouDo: '<p>a</p>' }] }
  const cleaned = withCleanRichText(data)
  t.equal(cleaned.page.entry.text, '<p>ok</p>')
  t.equal(cleaned.list, untouched, 'an unchanged branch is shared')
  t.equal(cleaned.jobs, data.jobs, 'clean text changes nothing')
  t.equal(data.page.entry.text, '<p>ok</p><script>x</script>', 'the input is not changed')
  t.equal(withCleanRichText(cleaned), cleaned, 'clean data comes back as it is')
  t.same(withCleanRichText({ text: ['<script>x</script>'], whatYouDo: { html: '<script>' }, howToApply: null }), { text: null, whatYouDo: null, howToApply: null }, 'a rich text field that is not text goes')
})

t.test('the memo answers text seen before without sanitising it again, within its byte bound', async (t) => {
  const asked: string[] = []
  const sanitize = memoisedSanitizer(4096, (html) => {
    asked.push(html)
    return sanitizeRichText(html)
  })
  const dirty = '<p>a</p><script>x</script>'
  t.equal(sanitize(dirty), '<p>a</p>')
  t.equal(sanitize(dirty), '<p>a</p>')
  t.equal(sanitize('<p>a</p>'), '<p>a</p>')
  t.equal(sanitize('<p>a</p>'), '<p>a</p>')
  t.same(asked, [dirty, '<p>a</p>'], 'each text sanitised once')
  for (let i = 0; i < 100; i++) sanitize(`<p>${i}</p>${'x'.repeat(40)}`)
  sanitize(dirty)
  t.equal(asked.filter((html) => html === dirty).length, 2, 'pushed out by newer text once the bound is reached')
})

t.test('Dutch phone numbers and e-mail addresses in rich text become links, E.164 for the numbers and never broken over lines; links the editor made stay as they are', async (t) => {
  t.equal(
    sanitizeRichText('<p>Bel 088 - 123 45 99 of mail <strong>schade@havenborg.nl</strong>.</p>'),
    '<p>Bel <a href="tel:+31881234599">088\u00a0\u2011\u00a0123\u00a045\u00a099</a> of mail <strong><a href="mailto:schade@havenborg.nl">schade@havenborg.nl</a></strong>.</p>',
  )
  const linked = '<p><a href="tel:0881234500">Bel <em>088 - 123 45 00</em></a> of <a href="mailto:info@havenborg.nl">info@havenborg.nl</a></p>'
  t.equal(sanitizeRichText(linked), linked, 'inside a link, nested or not, nothing is added')
  const clean = sanitizeRichText('<p>Bel 06 12345678, +31 38 123 45 67 of x.y@sub.example.nl</p>')
  t.equal(sanitizeRichText(clean), clean, 'cleaning clean text changes nothing (the memo and the renderer clean it again)')
  t.match(clean, /href="tel:\+31612345678"/)
  t.match(clean, /href="tel:\+31381234567"/)
  t.match(clean, /href="mailto:x.y@sub.example.nl"/)
  const numbers = '<p>KvK 08123456, AFM 12045678, Kifid 300.012345, IBAN NL91ABNA0417164300, 2026-11-26, 8021 EV</p>'
  t.equal(sanitizeRichText(numbers), numbers, 'registration numbers, an IBAN, a date and a postcode are no phone numbers')
})

t.test("a link of rich text to an address a link may not go to loses its href, and the drop is heard of with its field (issue 52, finding 3)", async (t) => {
  const heard: [string, unknown][] = []
  const dropped = (field: string, value: unknown): void => void heard.push([field, value])
  const hostile = ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'vbscript:msgbox(1)', ' JaVaScRiPt:x', 'java\tscript:x', '//elders.example/x', '/\\elders.example/x', 'ftp://elders.example/']
  for (const href of hostile) {
    t.equal(sanitizeRichText(`<p><a href="${href.replace(/"/g, '&quot;').replace(/</g, '&lt;')}">link</a></p>`, dropped, 'text'), '<p><a>link</a></p>', JSON.stringify(href))
  }
  t.same(heard, hostile.map((href) => ['text', href]), 'each heard of, as the field it was in')
  heard.length = 0
  const kept = '<p><a href="https://www.kifid.nl/">a</a> <a href="/kantoren">b</a> <a href="#top">c</a> <a href="mailto:info@havenborg.nl">d</a> <a href="tel:+31881234599">e</a> <a href="pagina?p=2">f</a></p>'
  t.equal(sanitizeRichText(kept, dropped), kept, 'allowed schemes, paths of the site, a #fragment and a relative address stay')
  t.same(heard, [], 'and nothing is heard of them')
  t.equal(sanitizeRichText('<p><a href="javascript:x">x</a></p>'), '<p><a>x</a></p>', 'without a listener: dropped all the same')
  t.equal(sanitizeRichText('<a href="javascript:x" target="_blank">x</a>', dropped), '<a target="_blank" rel="noopener noreferrer">x</a>', "the link's other rules still apply")
})

t.test('withCleanRichText and the memo pass each drop on, with the rich text field it was in', async (t) => {
  const heard: [string, unknown][] = []
  const dropped = (field: string, value: unknown): void => void heard.push([field, value])
  const data = { page: { entry: { text: '<p><a href="data:text/html,x">a</a></p>', intro: '<a href="/ok">ok</a>' } }, jobs: [{ whatYouDo: '<a href="vbscript:x">b</a>' }] }
  withCleanRichText(data, sanitizeRichText, dropped)
  t.same(heard, [['text', 'data:text/html,x'], ['whatYouDo', 'vbscript:x']])
  heard.length = 0
  const memo = memoisedSanitizer(4096)
  withCleanRichText(data, memo, dropped)
  t.same(heard, [['text', 'data:text/html,x'], ['whatYouDo', 'vbscript:x']], 'through the memo the first time')
  heard.length = 0
  withCleanRichText(data, memo, dropped)
  t.same(heard, [], 'text seen before is not sanitised again: heard of once')
})

t.test('every tag and attribute of the allowlist is kept as it is; a protocol-relative link is not', async (t) => {
  const all =
    '<h2>a</h2><h3>b</h3><h4>c</h4><p><strong>d</strong> <em>e</em> <b>f</b> <i>g</i><br /></p><hr /><blockquote><p>h</p></blockquote>' +
    '<ul><li>i</li></ul><ol><li>j</li></ol><table><thead><tr><th scope="col">k</th></tr></thead><tbody><tr><td>l</td></tr></tbody></table>' +
    '<p><a href="https://www.kifid.nl/" title="Kifid" target="_blank" rel="noopener noreferrer">m</a></p>'
  t.equal(sanitizeRichText(all), all)
  const heard: [string, unknown][] = []
  t.equal(sanitizeRichText('<a href="//elders.example/">n</a>', (field, value) => void heard.push([field, value])), '<a>n</a>')
  t.same(heard, [['richText', '//elders.example/']], 'a drop outside any field is told as richText')
})
