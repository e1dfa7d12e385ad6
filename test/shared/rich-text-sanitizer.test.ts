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
