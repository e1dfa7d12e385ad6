import { ARTICLES_PER_PAGE } from '../../shared/constants.ts'
import type { ArticleSummary, EntriesData } from '../../shared/content-types.ts'
import { PAGE_QUERY_PARAM } from '../../shared/routes.ts'
import { LinkedText, PublishedOn } from '../components/cms-content.tsx'
import { ContentImage } from '../components/content-image.tsx'
import { pathOfUri } from '../components/format.ts'
import { SiteLink } from '../components/site-context.tsx'
import { SingleWithEntries } from './common.tsx'
import { type ScreenProps, dataOf } from './types.ts'

/**
 * How wide a card's image is (.article-list in styles.css): 1, 2 or 3 columns
 * (from 36rem and 54rem) with 1.25rem gaps, in the container (at most 72rem,
 * 1.25rem padding a side), less the card's padding (1.25rem a side) and border.
 */
const CARD_IMAGE_SIZES = [
  '(min-width: 72rem) calc((72rem - 5rem) / 3 - 2.5rem - 2px)',
  '(min-width: 54rem) calc((100vw - 5rem) / 3 - 2.5rem - 2px)',
  '(min-width: 36rem) calc((100vw - 3.75rem) / 2 - 2.5rem - 2px)',
  'calc(100vw - 5rem - 2px)',
].join(', ')

/** Cards in the first row are in view at once: only those after it load lazily. */
const FIRST_ROW = 2

export function TopicalScreen({ payload }: ScreenProps) {
  const list = dataOf<EntriesData<ArticleSummary>>(payload, 'articles')
  const pages = Math.max(1, Math.ceil((list?.entryCount ?? 0) / ARTICLES_PER_PAGE))
  // The Dutch address of the overview, whichever alias was asked; page 1 without its number.
  const path = payload.canonicalPath ?? payload.path
  const href = (n: number): string => (n === 1 ? path : `${path}?${PAGE_QUERY_PARAM}=${n}`)
  const current = payload.page
  return (
    <SingleWithEntries payload={payload}>
      {/* React hoists these into the head, beside the canonical of this page (components/page-head.tsx). */}
      {current > 1 ? <link rel="prev" href={`${payload.siteUrl}${href(current - 1)}`} /> : null}
      {current < pages ? <link rel="next" href={`${payload.siteUrl}${href(current + 1)}`} /> : null}
      <ul className="article-list">
        {(list?.entries ?? []).map((article, index) => {
          const image = article.image[0]
          return (
            <li key={article.id} className="card article-card">
              {image ? (
                <ContentImage image={image} sizes={CARD_IMAGE_SIZES} lazy={index >= FIRST_ROW} />
              ) : null}
              <h2>
                <SiteLink href={pathOfUri(article.uri)}>{article.title}</SiteLink>
              </h2>
              <p className="meta">
                <PublishedOn entry={article} />
                {article.author?.fullName ? ` · ${article.author.fullName}` : ''}
              </p>
              {article.intro ? (
                <p>
                  <LinkedText text={article.intro} />
                </p>
              ) : null}
            </li>
          )
        })}
      </ul>
      {pages > 1 ? (
        <nav className="pagination" aria-label="Paginering">
          <ul>
            <PageStep label="Vorige" href={current > 1 ? href(current - 1) : undefined} rel="prev" />
            {Array.from({ length: pages }, (_, i) => i + 1).map((n) => (
              <li key={n}>
                <SiteLink href={href(n)} aria-current={n === current ? 'page' : undefined}>
                  <span className="visually-hidden">Pagina </span>
                  {n}
                </SiteLink>
              </li>
            ))}
            <PageStep label="Volgende" href={current < pages ? href(current + 1) : undefined} rel="next" />
          </ul>
        </nav>
      ) : null}
    </SingleWithEntries>
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
