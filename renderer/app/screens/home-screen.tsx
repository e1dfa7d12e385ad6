import { Suspense, use } from 'react'
import type { EntriesData, EntryData, HomePage, LatestArticle } from '../../../shared/content-types.ts'
import { scriptJson } from '../../../shared/script-json.ts'
import { Card, LinkedText, PublishedOn, RichText } from '../components/cms-content.tsx'
import { pathOfUri } from '../components/format.ts'
import { DEFERRED_SCRIPT_ID } from '../document-ids.ts'
import { type DeferredData, type ScreenProps, dataOf, entriesOf } from './types.ts'

function ArticleCards({ articles }: { articles: LatestArticle[] }) {
  return (
    <ul className="cards">
      {articles.map((article) => (
        <Card key={article.id} title={article.title} href={pathOfUri(article.uri)} intro={article.intro}>
          <p className="meta">
            <PublishedOn entry={article} />
          </p>
        </Card>
      ))}
    </ul>
  )
}

/** Waits for the deferred data; the server streams it in when it arrives, with the data for hydration. */
function LatestNews({ deferred }: { deferred: DeferredData }) {
  const data = use(deferred)
  const articles = (data?.latestArticles as EntriesData<LatestArticle> | undefined)?.entries
  return (
    <div className="latest-news__content" data-loaded="true">
      {articles ? (
        <ArticleCards articles={articles} />
      ) : (
        <p>Het laatste nieuws kan nu niet worden geladen.</p>
      )}
      <script
        type="application/json"
        id={DEFERRED_SCRIPT_ID}
        dangerouslySetInnerHTML={{ __html: deferred.json ?? scriptJson(data ?? null) }}
      />
    </div>
  )
}

export function HomeScreen({ payload, deferred }: ScreenProps) {
  const page = dataOf<EntryData<HomePage>>(payload, 'page')?.entry
  if (!page) return null
  return (
    <>
      <header className="hero">
        <div className="container">
          <h1>{page.title}</h1>
          {page.intro ? (
            <p className="lead">
              <LinkedText text={page.intro} />
            </p>
          ) : null}
          {page.ctaLinkUrl ? (
            <p>
              <a className="button" href={page.ctaLinkUrl}>
                {page.ctaLinkLabel ?? 'Schade melden'}
              </a>
            </p>
          ) : null}
        </div>
      </header>
      <div className="container">
        <RichText html={page.text} />
        <section aria-labelledby="home-verzekeringen" className="section">
          <h2 id="home-verzekeringen">Verzekeringen</h2>
          <ul className="cards">
            {page.highlightedInsurances.map((insurance) => (
              <Card key={insurance.id} title={insurance.title} href={pathOfUri(insurance.uri)} intro={insurance.intro} />
            ))}
          </ul>
          <p>
            <a href="/onze-verzekeringen">Alle verzekeringen</a>
          </p>
        </section>
        <section aria-labelledby="home-diensten" className="section">
          <h2 id="home-diensten">Onze dienstverlening</h2>
          <ul className="cards">
            {page.highlightedServices.map((service) => (
              <Card key={service.id} title={service.title} href={pathOfUri(service.uri)} intro={service.intro} />
            ))}
          </ul>
        </section>
        {page.ctaHeading ? (
          <section aria-labelledby="home-schade" className="section cta">
            <h2 id="home-schade">{page.ctaHeading}</h2>
            {page.ctaText ? (
              <p>
                <LinkedText text={page.ctaText} />
              </p>
            ) : null}
            {page.ctaLinkUrl ? (
              <a className="button" href={page.ctaLinkUrl}>
                {page.ctaLinkLabel ?? 'Schade melden'}
              </a>
            ) : null}
          </section>
        ) : null}
        <section aria-labelledby="home-nieuws" className="section latest-news">
          <h2 id="home-nieuws">Laatste nieuws</h2>
          {deferred ? (
            <Suspense fallback={<p className="latest-news__loading">Het laatste nieuws wordt geladen…</p>}>
              <LatestNews deferred={deferred} />
            </Suspense>
          ) : (
            <ArticleCards articles={entriesOf<LatestArticle>(payload, 'latestArticles')} />
          )}
          <p>
            <a href="/actueel">Al het nieuws</a>
          </p>
        </section>
      </div>
    </>
  )
}
