import { request } from 'undici'

/** The `<loc>`s of some sitemap XML, `&amp;` decoded. */
export const locsOf = (xml: string): string[] => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => (match[1] ?? '').replaceAll('&amp;', '&'))

/**
 * Every page address of a gateway's sitemap: /sitemap.xml is an index, so
 * its children are asked of the same gateway (their addresses are on
 * SITE_URL) and their addresses joined, in order.
 */
export async function sitemapLocs(base: string, fetchText: (path: string) => Promise<string> = async (path) => (await request(`${base}${path}`)).body.text()): Promise<string[]> {
  const index = await fetchText('/sitemap.xml')
  const children = locsOf(index).map((loc) => new URL(loc).pathname)
  const pages: string[] = []
  for (const child of children) pages.push(...locsOf(await fetchText(child)))
  return pages
}
