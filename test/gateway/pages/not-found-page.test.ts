import t from 'tap'
import { NOT_FOUND_RENDER_URL, SUGGESTION_PLACEHOLDER, fillNotFound, notFoundTemplate } from '../../../gateway/pages/not-found-page.ts'
import { notFoundMessage } from '../../../shared/constants.ts'

/** A stored 404 page as the renderer writes it for NOT_FOUND_RENDER_URL: its payload's fields, and the suggestion's paragraph when it has one. */
function storedPage({ payloadSuggestion, paragraph }: { payloadSuggestion: boolean; paragraph: boolean }): Buffer {
  const path = NOT_FOUND_RENDER_URL.path
  const fields = [`"path":"${path}"`, `"fullPath":"${path}"`, `"error":{"message":"${notFoundMessage(path)}"}`, ...(payloadSuggestion ? [`"suggestion":"${SUGGESTION_PLACEHOLDER}"`] : [])]
  const suggestion = paragraph ? `<p class="error-page__suggestion">Bedoelde u <a href="${SUGGESTION_PLACEHOLDER}">${SUGGESTION_PLACEHOLDER}</a>?</p>` : ''
  return Buffer.from(`<main><h1>Niet gevonden</h1>${suggestion}<p>Tekst</p></main><script type="application/json">{${fields.join(',')}}</script>`)
}

const visitor = (suggestion: string | null) => ({ path: '/kantorn', fullPath: '/kantorn', message: notFoundMessage('/kantorn'), suggestion })

t.test("each visitor's suggestion goes into the payload and the paragraph, or the paragraph goes", async (t) => {
  const page = storedPage({ payloadSuggestion: true, paragraph: true })
  const filled = fillNotFound(page, visitor('/kantoren')).toString()
  t.match(filled, '<p class="error-page__suggestion">Bedoelde u <a href="/kantoren">/kantoren</a>?</p>')
  t.match(filled, '"suggestion":"/kantoren"')
  t.match(filled, '"path":"/kantorn"')
  const none = fillNotFound(page, visitor(null)).toString()
  t.notMatch(none, 'error-page__suggestion', 'no paragraph without a suggestion')
  t.match(none, '"suggestion":null')
  t.notMatch(none, SUGGESTION_PLACEHOLDER)
  const odd = fillNotFound(page, visitor('/a"<b>&c')).toString()
  t.match(odd, '<a href="/a&quot;&lt;b&gt;&amp;c">/a&quot;&lt;b&gt;&amp;c</a>', 'escaped as React escapes it')
  t.match(odd, '"suggestion":"/a\\"\\u003cb>&c"', 'and script-safe in the payload')
})

t.test("a page without the paragraph (a renderer of an older build) is still stored, its payload's suggestion null", async (t) => {
  const page = storedPage({ payloadSuggestion: true, paragraph: false })
  t.ok(notFoundTemplate(page.toString()), 'cut, so stored')
  t.match(fillNotFound(page, visitor('/kantoren')).toString(), '"suggestion":null', 'never a suggestion the page does not show: hydration finds the page it renders')
  const older = storedPage({ payloadSuggestion: false, paragraph: false })
  t.ok(notFoundTemplate(older.toString()), 'nor one without either')
  t.notMatch(fillNotFound(older, visitor('/kantoren')).toString(), 'suggestion')
})
