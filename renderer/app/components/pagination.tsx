import { PAGE_QUERY_PARAM } from '../../../shared/routes.ts'
import type { PagePayload } from '../../../shared/payload.ts'
import { SiteLink } from './site-context.tsx'

/** Page numbers on either side of the current page; the first and the last page are always there too. */
export const PAGE_WINDOW = 2

/** What the pagination shows in order: a page number, or a gap (an ellipsis) for the pages left out. */
export type PageItem = number | 'gap'

/**
 * The page numbers to show: the first, the last and a window of PAGE_WINDOW
 * around the current one, with a gap where pages are left out (a gap of one
 * page shows that page instead: the ellipsis would take as much room). At
 * most 2 × PAGE_WINDOW + 5 items, however many pages there are.
 */
export function pageItems(current: number, pages: number): PageItem[] {
  const from = Math.max(1, Math.min(current, pages) - PAGE_WINDOW)
  const to = Math.min(pages, Math.max(current, 1) + PAGE_WINDOW)
  const shown = new Set<number>([1, pages])
  for (let n = from; n <= to; n++) shown.add(n)
  const sorted = [...shown].filter((n) => n >= 1 && n <= pages).sort((a, b) => a - b)
  const items: PageItem[] = []
  let previous = 0
  for (const n of sorted) {
    if (n - previous === 2) items.push(n - 1)
    else if (n - previous > 2) items.push('gap')
    items.push(n)
    previous = n
  }
  return items
}

/** How many pages a list of `count` entries takes at `perPage` a page (at least one). */
export function pageCount(count: number | undefined, perPage: number): number {
  return Math.max(1, Math.ceil((count ?? 0) / perPage))
}

/**
 * The pages of a paginated overview: rel="prev"/"next" (React hoists them
 * into the head beside the canonical), then "Vorige", the page numbers of
 * pageItems with the current one as aria-current="page", and "Volgende".
 * Page 1 is the overview's own address, never ?pagina=1.
 */
export function Pagination({ payload, pages }: { payload: PagePayload; pages: number }) {
  // The Dutch address of the overview, whichever alias was asked.
  const path = payload.canonicalPath ?? payload.path
  const href = (n: number): string => (n === 1 ? path : `${path}?${PAGE_QUERY_PARAM}=${n}`)
  const current = payload.page
  return (
    <>
      {current > 1 ? <link rel="prev" href={`${payload.siteUrl}${href(current - 1)}`} /> : null}
      {current < pages ? <link rel="next" href={`${payload.siteUrl}${href(current + 1)}`} /> : null}
      {pages > 1 ? (
        <nav className="pagination" aria-label="Paginering">
          <ul>
            <PageStep label="Vorige" href={current > 1 ? href(current - 1) : undefined} rel="prev" />
            {pageItems(current, pages).map((item, index) =>
              item === 'gap' ? (
                // Read out as nothing: the numbers on either side say which pages are left out.
                <li key={`gap-${index}`} className="pagination__gap" aria-hidden="true">
                  …
                </li>
              ) : (
                <li key={item}>
                  <SiteLink href={href(item)} aria-current={item === current ? 'page' : undefined}>
                    <span className="visually-hidden">Pagina </span>
                    {item}
                  </SiteLink>
                </li>
              ),
            )}
            <PageStep label="Volgende" href={current < pages ? href(current + 1) : undefined} rel="next" />
          </ul>
        </nav>
      ) : null}
    </>
  )
}

/**
 * "Vorige" or "Volgende": a link to the page before or after, or, on the
 * first or last page, the same word greyed out in its place, not a link
 * (hidden from screen readers, for whom it would be a step that goes nowhere).
 */
function PageStep({ label, href, rel }: { label: string; href: string | undefined; rel: 'prev' | 'next' }) {
  if (href === undefined) {
    return (
      <li className="pagination__step pagination__step--none" aria-hidden="true">
        {label}
      </li>
    )
  }
  return (
    <li className="pagination__step">
      <SiteLink href={href} rel={rel}>
        {label}
        <span className="visually-hidden"> pagina</span>
      </SiteLink>
    </li>
  )
}
