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
