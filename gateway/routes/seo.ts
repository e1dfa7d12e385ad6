import type { FastifyInstance, FastifyReply } from 'fastify'
import { CACHE_STATUS_HEADER } from '../../shared/constants.ts'
import { createRouteTable } from '../../shared/routes.ts'
import type { CacheStatus } from '../cache/query-cache.ts'
import { combineCacheStatus } from '../payload/build-payload.ts'
import { SITEMAP_GROUPS, type SitemapEntry, type SitemapGroup, SitemapBuilder, parseSitemapChild, sitemapVariables } from '../payload/sitemap.ts'

/** sitemap.xml (an index of the children: every public page and every CMS slug, with lastmod) and robots.txt. */
export async function seoRoutes(app: FastifyInstance): Promise<void> {
  const siteUrl = app.config.siteUrl.href.replace(/\/+$/, '')
  const site = app.config.siteHandle
  const sitemaps = new SitemapBuilder(createRouteTable(site), siteUrl, app.config.sitemapMaxUrls)

  /** A group's children, from its cached `Sitemap` answer (built once per answer). */
  const groupOf = async (group: SitemapGroup, requestId: string) => {
    const { answer, status } = await app.content.runNamed('Sitemap', sitemapVariables(group, site), { token: app.config.craftToken, preview: false, requestId })
    const entries = answer.body.errors === undefined ? (answer.body.data?.entries as SitemapEntry[] | undefined) : undefined
    return { group, status, whole: entries !== undefined, built: sitemaps.group(group, answer.body, entries) }
  }
  const send = (reply: FastifyReply, status: CacheStatus, whole: boolean, xml: string) =>
    reply
      .header(CACHE_STATUS_HEADER, status)
      .header('cache-control', whole ? 'public, max-age=300' : 'public, max-age=30')
      .type('application/xml; charset=utf-8')
      .send(xml)

  app.get('/sitemap.xml', async (request, reply) => {
    const groups = await Promise.all(SITEMAP_GROUPS.map((group) => groupOf(group, request.id)))
    return send(reply, combineCacheStatus(groups.map((g) => g.status)), groups.every((g) => g.whole), sitemaps.index(groups))
  })

  app.get<{ Params: { child: string } }>('/sitemap-:child.xml', async (request, reply) => {
    const child = parseSitemapChild(request.params.child)
    const found = child && (await groupOf(child.group, request.id))
    const xml = child && found?.built.children[child.n - 1]?.xml
    if (!found || xml === undefined) {
      return reply.code(404).header(CACHE_STATUS_HEADER, 'BYPASS').header('cache-control', 'public, max-age=30').type('text/plain; charset=utf-8').send('Deze sitemap bestaat niet.')
    }
    return send(reply, found.status, found.whole, xml)
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
