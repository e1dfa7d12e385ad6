import type { Article, EntryData } from '../../shared/content-types.ts'
import { RichText } from '../components/cms-content.tsx'
import { ContentImage } from '../components/content-image.tsx'
import { publicationDate } from '../components/format.ts'
import { PageIntro } from './common.tsx'
import { type ScreenProps, dataOf } from './types.ts'

/** The image is as wide as the text column (46rem, .article-image), or the container less its padding (1.25rem a side). */
const ARTICLE_IMAGE_SIZES = '(min-width: 48.5rem) 46rem, calc(100vw - 2.5rem)'

export function ArticleScreen({ payload }: ScreenProps) {
  const article = dataOf<EntryData<Article>>(payload, 'entry')?.entry
  if (!article) return null
  const image = article.image[0]
  const published = publicationDate(article)
  const author = article.author?.fullName
  return (
    <article>
      <PageIntro title={article.title} intro={article.intro} entry={article}>
        {published || author ? (
          <p className="meta">
            {published ? <time dateTime={published.iso}>{published.text}</time> : null}
            {published && author ? ' · ' : ''}
            {author}
          </p>
        ) : null}
      </PageIntro>
      <div className="container">
        {image ? (
          <ContentImage className="article-image" image={image} sizes={ARTICLE_IMAGE_SIZES} lazy={false} />
        ) : null}
        <RichText html={article.text} />
        <p>
          <a href="/actueel">Al het nieuws</a>
        </p>
      </div>
    </article>
  )
}
