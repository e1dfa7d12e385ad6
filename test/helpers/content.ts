import { loadGatewayConfig } from '../../gateway/config.ts'
import { ContentStore } from '../../gateway/embedded-cms/content-store.ts'
import { DEFAULT_SITE_HANDLE } from '../../shared/constants.ts'

/** The shipped content, read straight from its files: what the pages must show. */
export function shippedContent(site = DEFAULT_SITE_HANDLE): ContentStore {
  return ContentStore.fromDirectory(loadGatewayConfig({}).contentDir, site)
}

export function titleOf(store: ContentStore, section: string, slug?: string): string {
  const [entry] = store.findEntries({ section: [section], ...(slug ? { slug: [slug] } : {}) }, undefined)
  if (!entry) throw new Error(`no entry in ${section}${slug ? `/${slug}` : ''}`)
  return entry.title
}

export function slugsOf(store: ContentStore, section: string): string[] {
  return store.findEntries({ section: [section] }, undefined).map((entry) => entry.slug)
}
