/**
 * What a page's head says about it (title, description, canonical address,
 * share image). Worked out in app-root.tsx (pageMeta) and written by
 * components/page-head.tsx; a module of its own so neither imports the other.
 */
export interface PageMeta {
  title: string
  /** Title of the page's own entry, without the site name. */
  heading: string | undefined
  description: string | undefined
  noindex: boolean
  /** Absolute canonical address: the Dutch path of an alias pair, with the page number of a list. */
  canonicalUrl: string | undefined
  image: string | undefined
}
