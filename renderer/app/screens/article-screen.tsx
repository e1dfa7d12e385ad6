import { HOME_LATEST_ARTICLES } from '../../../shared/constants.ts'
import type { Article, EntryData, LatestArticle } from '../../../shared/content-types.ts'
import { RichText } from '../components/cms-content.tsx'
import { ContentImage } from '../components/content-image.tsx'
import { pathOfUri, publicationDate } from '../components/format.ts'
import { PageIntro } from './common.tsx'
import type { ScreenJsonLd } from '../structured-data.ts'
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
        <ShareLinks title={article.title} url={payload.siteUrl && payload.canonicalPath ? `${payload.siteUrl}${payload.canonicalPath}` : undefined} />
        <MoreArticles articles={moreToRead(article)} />
        <p>
          <a href="/actueel">Al het nieuws</a>
        </p>
      </div>
    </article>
  )
}

/**
 * Sharing as plain links: an e-mail, WhatsApp's and LinkedIn's share
 * addresses. No script or widget of theirs is loaded and nothing is stored
 * until the visitor follows one.
 */
export function shareLinks(title: string, url: string): { label: string; href: string }[] {
  const text = encodeURIComponent(`${title} ${url}`)
  return [
    { label: 'Mail', href: `mailto:?subject=${encodeURIComponent(title)}&body=${encodeURIComponent(url)}` },
    { label: 'WhatsApp', href: `https://wa.me/?text=${text}` },
    { label: 'LinkedIn', href: `https://www.linkedin.com/sharing/share-offsite/?url=${encodeURIComponent(url)}` },
  ]
}

function ShareLinks({ title, url }: { title: string; url: string | undefined }) {
  if (!url) return null
  return (
    <section className="section share-links" aria-labelledby="delen">
      <h2 id="delen">Delen</h2>
      <ul className="share-links__list">
        {shareLinks(title, url).map((link) => (
          <li key={link.label}>
            <a href={link.href} rel="noopener noreferrer nofollow">
              {`Deel via ${link.label}`}
            </a>
          </li>
        ))}
      </ul>
    </section>
  )
}

/**
 * Something more to read at the end of an article: its nearest neighbours by
 * post date, the older one first, then the newer, then the next of each
 * (shared/operations.ts articleNeighbours), shown newest first.
 */
export function moreToRead(article: Article): LatestArticle[] {
  const nearest = [article.older, article.newer, article.older?.older, article.newer?.newer].filter((other): other is LatestArticle => !!other && other.id !== article.id)
  const posted = (entry: LatestArticle): number => Date.parse(entry.postDate ?? '') || 0
  return nearest.slice(0, HOME_LATEST_ARTICLES).sort((a, b) => posted(b) - posted(a))
}

/** Neighbouring articles: something more to read at the end of an article. */
function MoreArticles({ articles }: { articles: readonly LatestArticle[] }) {
  if (articles.length === 0) return null
  return (
    <section className="section" aria-labelledby="meer-nieuws">
      <h2 id="meer-nieuws">Meer nieuws</h2>
      <ul className="more-articles">
        {articles.map((other) => {
          const published = publicationDate(other)
          return (
            <li key={other.id}>
              <a href={pathOfUri(other.uri)}>{other.title}</a>
              {published ? (
                <>
                  {' '}
                  <time className="meta" dateTime={published.iso}>
                    {published.text}
                  </time>
                </>
              ) : null}
            </li>
          )
        })}
      </ul>
    </section>
  )
}

const absolute = (siteUrl: string, path: string): string => (/^https?:\/\//.test(path) ? path : `${siteUrl}${path}`)

/** The news article in the page's structured data (structured-data.ts). */
ArticleScreen.jsonLd = ((payload, site, siteUrl, url) => {
  const article = dataOf<EntryData<Article>>(payload, 'entry')?.entry
  if (!article) return []
  const image = article.image[0]
  return [
    {
      '@type': 'NewsArticle',
      headline: article.title,
      description: article.intro,
      // A preview's draft or scheduled article was never published: no datePublished it may get.
      ...(publicationDate(article) ? { datePublished: article.postDate, dateModified: article.dateUpdated ?? article.postDate } : {}),
      author: { '@type': 'Person', name: article.author?.fullName ?? site.companyName },
      publisher: { '@type': 'Organization', name: site.companyName, logo: { '@type': 'ImageObject', url: `${siteUrl}/favicon.svg` } },
      ...(image ? { image: [absolute(siteUrl, image.shareUrl ?? image.url)] } : {}),
      mainEntityOfPage: url,
      inLanguage: 'nl-NL',
    },
  ]
}) satisfies ScreenJsonLd
