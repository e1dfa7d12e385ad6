import { ARTICLES_PER_PAGE } from '../../../shared/constants.ts'
import type { ArticleSummary, EntriesData } from '../../../shared/content-types.ts'
import { LinkedText, PublishedOn } from '../components/cms-content.tsx'
import { ContentImage } from '../components/content-image.tsx'
import { pathOfUri } from '../components/format.ts'
import { Pagination, pageCount } from '../components/pagination.tsx'
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
  const pages = pageCount(list?.entryCount, ARTICLES_PER_PAGE)
  return (
    <SingleWithEntries payload={payload}>
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
      <Pagination payload={payload} pages={pages} />
    </SingleWithEntries>
  )
}
