import type { FastifyInstance } from 'fastify'
import { CACHE_STATUS_HEADER } from '../../shared/constants.ts'
import { CHANNELS } from '../../shared/sections.ts'
import { type RouteDefinition, type RouteTable, createRouteTable } from '../../shared/routes.ts'

interface SitemapEntry {
  sectionHandle: string
  slug: string
  dateUpdated: string | null
}

const xmlEscape = (text: string): string =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c)

/** The indexable path of a CMS entry: its single's route, or its channel's slug route. */
function pathOf(entry: SitemapEntry, routes: RouteTable): string | undefined {
  const single = routes.routes.find((route) => route.handle === entry.sectionHandle)
  if (single) return single.canonical
  const screen = { [CHANNELS.insurances.section]: 'insurance', [CHANNELS.jobs.section]: 'job', [CHANNELS.topical.section]: 'article', [CHANNELS.services.section]: 'service' }[entry.sectionHandle]
  const slugRoute = routes.routes.find((route: RouteDefinition) => route.screen === screen && route.canonical.endsWith('/:slug'))
  return slugRoute ? routes.canonicalPath(slugRoute, { slug: entry.slug }) : undefined
}

/** sitemap.xml (every public page and every CMS slug, with lastmod) and robots.txt. */
export async function seoRoutes(app: FastifyInstance): Promise<void> {
  const siteUrl = app.config.siteUrl.href.replace(/\/+$/, '')
  const routes = createRouteTable(app.config.siteHandle)

  app.get('/sitemap.xml', async (request, reply) => {
    const { answer, status } = await app.content.runNamed('Sitemap', { site: app.config.siteHandle }, {
      token: app.config.craftToken,
      preview: false,
      requestId: request.id,
    })
    const entries = answer.body.data?.entries as SitemapEntry[] | undefined
    // Only addresses a live entry stands behind, each with the date of that entry:
    // a single without its entry is a 404, and an alias is never listed, only the
    // canonical address it points to. When the CMS answers without data (errors
    // only), the route table's canonical addresses, so the sitemap is never empty.
    const lastmod = new Map<string, string | null>()
    if (entries) {
      const dated = new Map<string, string | null>()
      for (const entry of entries) {
        const path = pathOf(entry, routes)
        if (path) dated.set(path, entry.dateUpdated)
      }
      for (const path of routes.canonicalStaticPaths()) if (dated.has(path)) lastmod.set(path, dated.get(path) ?? null)
      for (const [path, date] of dated) lastmod.set(path, date)
    } else {
      for (const path of routes.canonicalStaticPaths()) lastmod.set(path, null)
    }
    const urls = [...lastmod.entries()]
      .map(([path, date]) => `  <url><loc>${xmlEscape(`${siteUrl}${path}`)}</loc>${date ? `<lastmod>${xmlEscape(new Date(date).toISOString())}</lastmod>` : ''}</url>`)
      .join('\n')
    return reply
      .header(CACHE_STATUS_HEADER, status)
      .header('cache-control', entries ? 'public, max-age=300' : 'public, max-age=30')
      .type('application/xml; charset=utf-8')
      .send(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`)
  })

  app.get('/robots.txt', async (_request, reply) =>
    reply
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(
        [
          'User-agent: *',
          'Disallow: /api',
          'Disallow: /cms/',
          'Disallow: /*x-craft-preview',
          'Disallow: /*x-craft-live-preview',
          'Disallow: /*token=',
          '',
          `Sitemap: ${siteUrl}/sitemap.xml`,
          '',
        ].join('\n'),
      ),
  )
}
