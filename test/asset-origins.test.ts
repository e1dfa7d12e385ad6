import { execFile } from 'node:child_process'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { loadGatewayConfig } from '../gateway/config.ts'
import { shippedContent, slugsOf } from './helpers/content.ts'
import { decodeEntities } from './helpers/html.ts'
import { startFaultUpstream } from './helpers/fault-upstream.ts'
import { get as getUrl } from './helpers/http.ts'
import { ROOT } from './helpers/processes.ts'
import { startSystem } from './helpers/system.ts'

// Craft's asset URLs are absolute, on the CMS's host or an asset CDN: the pages' CSP must let them in,
// and og:image and JSON-LD must carry them as the CMS gave them.

const SITE = 'https://www.havenborg.example'
const CDN = 'https://assets.havenborg.example'
const OTHER_CDN = 'https://beelden.havenborg.example:8443'
const store = shippedContent()
const [slug] = slugsOf(store, 'topical')
const ARTICLE = `/topical/${slug}`
/** The article's image as the content holds it: a path relative to the volume. */
const imagePath = (() => {
  const [entry] = store.findEntries({ section: ['topical'], slug: [slug ?? ''] }, undefined)
  const [asset] = store.assetsByIds(entry?.fields.image)
  if (!asset) throw new Error(`article ${slug} has no image`)
  return asset.url
})()

const get = (base: string, path: string) => getUrl(`${base}${path}`)
const imgSrcOf = (headers: Record<string, unknown>): string | undefined =>
  /(?:^|;\s*)img-src ([^;]*)/.exec(String(headers['content-security-policy'] ?? ''))?.[1]
const withoutImgSrc = (headers: Record<string, unknown>): string =>
  String(headers['content-security-policy'] ?? '')
    .split('; ')
    .filter((directive) => !directive.startsWith('img-src '))
    .join('; ')
    .replace(/'nonce-[^']+'/g, "'nonce'")
const metaOf = (html: string, key: string): string | undefined => {
  const value = new RegExp(`<meta (?:name|property)="${key}" content="([^"]*)"`).exec(html)?.[1]
  return value === undefined ? undefined : decodeEntities(value)
}
const newsArticleOf = (html: string): Record<string, any> | undefined =>
  [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)]
    .map((m) => JSON.parse(m[1] ?? 'null') as Record<string, any>)
    .find((item) => item['@type'] === 'NewsArticle')

/** A page fetched twice: rendered (nonce), then from the page cache (hashes); both with their img-src. */
async function freshAndCached(t: Test, base: string, path: string) {
  const fresh = await get(base, path)
  const cached = await get(base, path)
  t.equal(fresh.status, 200, `${path}: 200`)
  t.equal(fresh.headers['x-cache'], 'MISS', `${path}: rendered`)
  t.match(String(fresh.headers['content-security-policy']), /script-src 'self' 'nonce-/, `${path}: the fresh page's policy`)
  t.equal(cached.headers['x-cache'], 'HIT', `${path}: then from the page cache`)
  t.notMatch(String(cached.headers['content-security-policy']), 'nonce-', `${path}: the cached page's policy (no nonce)`)
  return { fresh, cached }
}

t.test('a real Craft: img-src has the origin of CRAFT_API_URL and each ASSET_ORIGINS entry, on a fresh and on a cached page', async (t) => {
  const upstream = await startFaultUpstream()
  const craft = new URL(upstream.url).origin
  const system = await startSystem({ SITE_URL: SITE, CRAFT_API_URL: upstream.url, ASSET_ORIGINS: ` ${CDN} ,${OTHER_CDN}` })
  const plain = await startSystem({ SITE_URL: SITE, CRAFT_API_URL: upstream.url })
  t.teardown(async () => {
    await system.close()
    await plain.close()
    await upstream.close()
  })
  for (const path of ['/', '/actueel', ARTICLE, '/actueel?pagina=2']) {
    const { fresh, cached } = await freshAndCached(t, system.url, path)
    for (const [which, page] of [['fresh', fresh], ['cached', cached]] as const) {
      t.equal(imgSrcOf(page.headers), `'self' data: ${craft} ${CDN} ${OTHER_CDN}`, `${path} (${which}): the site, data: URLs, Craft's origin and each ASSET_ORIGINS entry`)
    }
  }
  t.equal(imgSrcOf((await get(plain.url, '/')).headers), `'self' data: ${craft}`, 'without ASSET_ORIGINS: Craft\'s origin alone')
  // Both from their page caches (the article is stored on each after one request; an unknown parameter is no part of its key).
  await get(plain.url, ARTICLE)
  const article = await get(system.url, `${ARTICLE}?ander=1`)
  const control = await get(plain.url, `${ARTICLE}?ander=1`)
  t.equal(article.headers['x-cache'], control.headers['x-cache'], 'both stored pages')
  t.equal(withoutImgSrc(article.headers), withoutImgSrc(control.headers), 'the rest of the policy is as it was')

  // The stand-in serves its volume on its own host, as Craft does; the gateway does not serve it then.
  const image = await request(`${craft}/cms-assets/${imagePath}`)
  await image.body.dump()
  t.equal(image.statusCode, 200, 'the asset is on Craft\'s host')
  const notHere = await request(`${system.url}/cms-assets/${imagePath}`)
  await notHere.body.dump()
  t.equal(notHere.statusCode, 404, 'with CRAFT_API_URL the gateway has no /cms-assets/')
})

t.test('the embedded content API: img-src has the origin of EMBEDDED_ASSET_URL (and ASSET_ORIGINS)', async (t) => {
  // An empty value is no value: the default, not the test helper's loopback address.
  const byDefault = await startSystem({ SITE_URL: SITE, EMBEDDED_ASSET_URL: '' })
  const elsewhere = await startSystem({ SITE_URL: SITE, EMBEDDED_ASSET_URL: `${CDN}/volumes/nieuws/`, ASSET_ORIGINS: OTHER_CDN })
  t.teardown(async () => {
    await byDefault.close()
    await elsewhere.close()
  })
  for (const [system, expected] of [
    [byDefault, `'self' data: ${SITE}`],
    [elsewhere, `'self' data: ${CDN} ${OTHER_CDN}`],
  ] as const) {
    const { fresh, cached } = await freshAndCached(t, system.url, ARTICLE)
    t.equal(imgSrcOf(fresh.headers), expected, `fresh: ${expected}`)
    t.equal(imgSrcOf(cached.headers), expected, `cached: ${expected}`)
  }
  const payload = JSON.parse((await get(byDefault.url, `${ARTICLE}/_payload.json`)).body) as { data: { entry: { entry: { image: { url: string }[] } } } }
  t.equal(payload.data.entry.entry.image[0]?.url, `${SITE}/cms-assets/${imagePath}`, 'EMBEDDED_ASSET_URL is {SITE_URL}/cms-assets by default')
})

t.test('og:image and the JSON-LD image of an article are the asset URLs as the CMS gave them', async (t) => {
  const upstream = await startFaultUpstream()
  const craft = new URL(upstream.url).origin
  const embedded = await startSystem({ SITE_URL: SITE, EMBEDDED_ASSET_URL: `${CDN}/volumes/nieuws` })
  const real = await startSystem({ SITE_URL: SITE, CRAFT_API_URL: upstream.url })
  t.teardown(async () => {
    await embedded.close()
    await real.close()
    await upstream.close()
  })
  for (const [name, system, expected] of [
    ['the embedded API', embedded, `${CDN}/volumes/nieuws/${imagePath}`],
    ['a Craft on its own host', real, `${craft}/cms-assets/${imagePath}`],
  ] as const) {
    const payload = JSON.parse((await get(system.url, `${ARTICLE}/_payload.json`)).body) as { data: { entry: { entry: { image: { url: string; srcset: string; shareUrl: string }[] } } } }
    const given = payload.data.entry.entry.image[0]
    t.equal(given?.url, expected, `${name}: the CMS gives an absolute asset URL`)
    const share = given?.shareUrl ?? ''
    t.ok(share.startsWith(expected.slice(0, expected.lastIndexOf('/') + 1)) && share !== expected && /\.(png|jpe?g)$/.test(share), `${name}: and a raster transform of the share size (${share})`)
    t.ok(given?.srcset.split(', ').every((candidate) => candidate.startsWith(`${expected.slice(0, expected.lastIndexOf('/'))}/`)), `${name}: and a srcset of absolute URLs`)
    const { body: html } = await get(system.url, ARTICLE)
    t.equal(metaOf(html, 'og:image'), share, `${name}: og:image is the share transform as the CMS gave it`)
    t.same(newsArticleOf(html)?.image, [share], `${name}: the NewsArticle's image likewise`)
    t.match(html, `src="${expected}"`, `${name}: the <img> too`)
    t.equal(metaOf((await get(system.url, '/over-ons')).body, 'og:image'), `${SITE}/images/delen-havenborg.png`, `${name}: a page without an image shares the site's own default image`)
  }
})

t.test('a bad ASSET_ORIGINS or EMBEDDED_ASSET_URL is a configuration error that names the variable', async (t) => {
  for (const value of ['cdn.havenborg.example', 'https://cdn.havenborg.example/', 'https://cdn.havenborg.example/beelden', `${CDN},ftp://files.example`, `${CDN}, `]) {
    t.throws(() => loadGatewayConfig({ ASSET_ORIGINS: value }), { name: 'ConfigError', message: /^ASSET_ORIGINS: / }, `ASSET_ORIGINS="${value}"`)
  }
  for (const value of ['/cms-assets', 'ftp://assets.example/x', 'https://assets.example/x?v=1', 'niet een adres']) {
    t.throws(() => loadGatewayConfig({ EMBEDDED_ASSET_URL: value }), { name: 'ConfigError', message: /^EMBEDDED_ASSET_URL=/ }, `EMBEDDED_ASSET_URL="${value}"`)
  }
  const config = loadGatewayConfig({ ASSET_ORIGINS: `${CDN},${OTHER_CDN}`, CRAFT_API_URL: 'https://cms.havenborg.example/api' })
  t.same(config.imageSources, ['https://cms.havenborg.example', CDN, OTHER_CDN], 'a real Craft: its origin and ASSET_ORIGINS')
  t.same(loadGatewayConfig({ SITE_URL: SITE }).imageSources, [SITE], 'the embedded API: the origin of {SITE_URL}/cms-assets')

  // The gateway itself (from source, so no build is needed) stops at start with that message.
  const exit = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, ['--import', 'tsx', 'gateway/server.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', PORT: '0', ASSET_ORIGINS: 'https://cdn.havenborg.example/beelden' } }, (_error, _stdout, stderr) =>
      resolve({ code: child.exitCode, stderr }),
    )
  })
  t.equal(exit.code, 2, 'the gateway does not start')
  t.match(exit.stderr, 'configuration error: ASSET_ORIGINS: "https://cdn.havenborg.example/beelden" is not an origin', 'and says which setting is wrong')
})
