import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../shared/constants.ts'
import { CRAFT_VERSIONS } from '../shared/craft-naming.ts'
import { createRouteTable } from '../shared/routes.ts'
import { shippedContent, slugsOf } from './helpers/content.ts'
import { decodeEntities, h1Of } from './helpers/html.ts'
import { startSystem } from './helpers/system.ts'
import { sitemapLocs } from './helpers/sitemap.ts'

const SITE = 'https://www.havenborg.example'
const ERROR_HEADINGS = new Set(['Er is iets misgegaan.', '404 - Pagina niet gevonden'])

// The embedded content API imitates Craft 5 by default and Craft 4 on request: every page must render against both.
for (const version of CRAFT_VERSIONS) {
  t.test(`embedded content as Craft ${version}: every address of the sitemap renders with its own h1`, async (t) => {
    const system = await startSystem({ SITE_URL: SITE, EMBEDDED_CRAFT_VERSION: String(version) })
    t.teardown(() => system.close())
    const ready = (await (await request(`${system.internalUrl}/readyz`)).body.json()) as { checks: { schema: string }; schema: { craftVersion: number } }
    t.equal(ready.checks.schema, 'ok', 'every operation validates against the embedded schema')
    t.equal(ready.schema.craftVersion, version, `the gateway found Craft ${version} naming`)

    const paths = (await sitemapLocs(system.url)).map((loc) => loc.slice(SITE.length) || '/')
    for (const path of createRouteTable(DEFAULT_SITE_HANDLE).canonicalStaticPaths()) t.ok(paths.includes(path), `the sitemap lists ${path}`)
    for (const slug of slugsOf(shippedContent(), 'topical')) t.ok(paths.some((path) => path.endsWith(`/${slug}`)), `and article ${slug}`)
    const headings = new Set<string>()
    for (const path of paths) {
      const response = await request(`${system.url}${path}`)
      const html = await response.body.text()
      const heading = decodeEntities(h1Of(html) ?? '')
      t.equal(response.statusCode, 200, `${path}: 200`)
      t.ok(heading !== '' && !ERROR_HEADINGS.has(heading), `${path}: its own h1 (${heading})`)
      headings.add(heading)
    }
    t.ok(headings.size >= paths.length - 3, 'the pages are different pages, not one page many times')
  })
}
