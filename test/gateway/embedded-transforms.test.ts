import t, { type Test } from 'tap'
import { request } from 'undici'
import { shippedContent, slugsOf } from '../helpers/content.ts'
import { startSystem } from '../helpers/system.ts'

// Craft's image transforms take `format` (the `@transform` directive and `url(…)` share their arguments,
// craftcms/cms src/gql/directives/Transform.php and src/gql/interfaces/elements/Asset.php; on an assets
// field the directive gives every asset that transform, and `srcset` keeps its format, Asset::getUrlsBySize).
// The embedded API answers the same documents with files of that format from its volume.
const assetsOn = (port: number) => `http://127.0.0.1:${port}/cms-assets`
const system = await startSystem((port) => ({ EMBEDDED_ASSET_URL: assetsOn(port) }))
const ASSETS = assetsOn(Number(new URL(system.url).port))
t.teardown(() => system.close())
const api = String(system.gateway.embeddedCmsUrl)
const [slug] = slugsOf(shippedContent(), 'topical')

/** The first article's image, with `selection` (Craft 5's type names). */
async function image(t: Test, selection: string, fieldDirective = ''): Promise<Record<string, unknown>> {
  const query = `{ entry(section: "topical", slug: "${slug}") { ... on article_Entry { image ${fieldDirective} { ${selection} } } } }`
  const response = await request(api, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) })
  const body = (await response.body.json()) as { data?: { entry: { image: Record<string, unknown>[] } }; errors?: unknown }
  t.equal(body.errors, undefined, `no errors for ${fieldDirective} { ${selection} }`)
  return body.data?.entry.image[0] ?? {}
}

/** Content type and first bytes of a file on the asset URL. */
async function served(url: string): Promise<{ status: number; type: string; magic: string }> {
  const response = await request(url)
  const bytes = Buffer.from(await response.body.arrayBuffer())
  const magic = bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP' ? 'webp' : bytes.subarray(1, 4).toString('latin1') === 'PNG' ? 'png' : 'other'
  return { status: response.statusCode, type: String(response.headers['content-type']), magic }
}

t.test('url(width:, format: "webp") and url @transform(width:, format: "webp") serve WebP', async (t) => {
  const answer = await image(t, 'args: url(width: 800, format: "webp") directive: url @transform(width: 800, format: "webp") plain: url(width: 800)')
  for (const key of ['args', 'directive']) {
    const url = String(answer[key])
    t.ok(url.startsWith(`${ASSETS}/`), `${key}: on the asset URL (${url})`)
    t.same(await served(url), { status: 200, type: 'image/webp', magic: 'webp' }, `${key}: a WebP file`)
  }
  t.same(await served(String(answer.plain)), { status: 200, type: 'image/png', magic: 'png' }, 'without format: the default format')
  t.not(answer.args, answer.plain, 'another file than the default format')
})

t.test('image @transform(format: "webp") { srcset }: every candidate in WebP; without it in the default format', async (t) => {
  const sizes = '["480w", "800w", "1200w", "1600w"]'
  const webp = String((await image(t, `srcset(sizes: ${sizes})`, '@transform(format: "webp")')).srcset)
  const plain = String((await image(t, `srcset(sizes: ${sizes})`)).srcset)
  for (const [srcset, type] of [
    [webp, 'webp'],
    [plain, 'png'],
  ] as const) {
    const candidates = srcset.split(', ').map((candidate) => candidate.split(' '))
    t.same(
      candidates.map(([, width]) => width),
      ['480w', '800w', '1200w', '1600w'],
      `${type}: a candidate per width`,
    )
    for (const [url] of candidates) t.same(await served(url ?? ''), { status: 200, type: `image/${type}`, magic: type }, `${type}: ${url}`)
  }
})

t.test('width and height take the transform arguments too', async (t) => {
  const answer = await image(t, 'width height w800: width(width: 800) h800: height(width: 800) fit: width(width: 400, height: 400, mode: "fit")')
  t.same(answer, { width: 1200, height: 675, w800: 800, h800: 450, fit: 400 }, 'the size of the transformed file')
})
