import t from 'tap'
import { request } from 'undici'
import { shippedContent, slugsOf } from './helpers/content.ts'
import { decodeEntities } from './helpers/html.ts'
import { startSystem } from './helpers/system.ts'

const store = shippedContent()
// The embedded volume on the gateway's own address, as the CMS's volume base URL.
const assetsOn = (port: number) => `http://127.0.0.1:${port}/cms-assets`
const system = await startSystem((port) => ({ EMBEDDED_ASSET_URL: assetsOn(port) }))
const ASSETS = assetsOn(Number(new URL(system.url).port))
t.teardown(() => system.close())

const imgs = (html: string) => [...html.matchAll(/<img ([^>]+)\/?>/g)].map((m) => m[1] ?? '')
/** `<picture><source …><img …></picture>`: the source's attributes and the image's. */
const pictures = (html: string) => [...html.matchAll(/<picture><source ([^>]+?)\/?><img ([^>]+?)\/?><\/picture>/g)].map((m) => ({ source: m[1] ?? '', img: m[2] ?? '' }))
const attr = (tag: string, name: string) => {
  const value = new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1]
  return value === undefined ? undefined : decodeEntities(value)
}

t.test('article images: width, height, alt from the CMS, a src and srcsets of real files on the asset URL, WebP first, eager above the fold', async (t) => {
  for (const slug of slugsOf(store, 'topical')) {
    const html = await (await request(`${system.url}/topical/${slug}`)).body.text()
    const [picture] = pictures(html)
    t.ok(picture, `${slug} has its image in a <picture>`)
    if (!picture) continue
    const { source, img } = picture
    t.equal(attr(source, 'type'), 'image/webp', 'the WebP source comes first')
    t.equal(attr(source, 'sizes'), attr(img, 'sizes'), 'with the same sizes as the fallback')
    t.ok(Number(attr(img, 'width')) > 0 && Number(attr(img, 'height')) > 0, 'width and height')
    t.ok((attr(img, 'alt') ?? '').length > 10, 'alt text from the CMS')
    t.notOk(attr(img, 'loading'), 'the article image is not lazy')
    t.ok(attr(img, 'sizes'), 'sizes')
    const candidates = (attr(img, 'srcSet') ?? attr(img, 'srcset') ?? '').split(', ')
    const webp = (attr(source, 'srcSet') ?? attr(source, 'srcset') ?? '').split(', ')
    t.same(candidates.map((c) => c.split(' ')[1]), ['480w', '800w', '1200w', '1600w'], 'four widths')
    t.same(webp.map((c) => c.split(' ')[1]), ['480w', '800w', '1200w', '1600w'], 'four widths in WebP')
    const files = [
      [attr(img, 'src') ?? '', 'image/svg+xml'],
      ...candidates.map((candidate) => [candidate.split(' ')[0] ?? '', 'image/png']),
      ...webp.map((candidate) => [candidate.split(' ')[0] ?? '', 'image/webp']),
    ]
    for (const [url, type] of files) {
      t.ok(url?.startsWith(`${ASSETS}/`), `${url} is absolute on the asset URL`)
      const response = await request(url ?? '')
      await response.body.dump()
      t.equal(response.statusCode, 200, `${url} exists`)
      t.equal(response.headers['content-type'], type)
      t.equal(response.headers['cross-origin-resource-policy'], 'cross-origin', 'may be shown by a page on another origin')
      t.match(response.headers['cache-control'], /max-age=\d{6,}/, 'kept long')
    }
  }
})

t.test('the news overview loads images below the first row lazily', async (t) => {
  const html = await (await request(`${system.url}/actueel`)).body.text()
  const loading = imgs(html).map((img) => attr(img, 'loading') ?? 'eager')
  t.ok(loading.length >= 3)
  t.same(loading.slice(0, 2), ['eager', 'eager'])
  t.ok(loading.slice(2).every((value) => value === 'lazy'))
})
