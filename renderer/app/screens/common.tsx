import type { ReactNode } from 'react'
import type { EntryBase, EntryData, SinglePage } from '../../../shared/content-types.ts'
import type { PagePayload } from '../../../shared/payload.ts'
import { LinkedText, RichText } from '../components/cms-content.tsx'
import { DraftMarker } from '../components/draft-marker.tsx'
import { dataOf } from './types.ts'

export function singlePage(payload: PagePayload, key = 'page'): SinglePage | null {
  return dataOf<EntryData<SinglePage>>(payload, key)?.entry ?? null
}

/** A page's title and intro; `entry`, the entry the page shows, is marked when a preview shows it unpublished. */
export function PageIntro({ title, intro, entry, children }: { title: string; intro?: string | null; entry?: EntryBase; children?: ReactNode }) {
  return (
    <header className="page-intro">
      <div className="container">
        <h1>{title}</h1>
        {entry ? <DraftMarker entry={entry} /> : null}
        {intro ? (
          <p className="lead">
            <LinkedText text={intro} />
          </p>
        ) : null}
        {children}
      </div>
    </header>
  )
}

/** The page of a single: title, intro and its rich text. */
export function SingleContent({ page }: { page: SinglePage }) {
  return (
    <>
      <PageIntro title={page.title} intro={page.intro} entry={page} />
      <div className="container">
        <RichText html={page.text} />
      </div>
    </>
  )
}

/**
 * A screen that is a single's page with what the screen lists below it (the
 * overviews, contact), in a container of its own; nothing without the single.
 */
export function SingleWithEntries({ payload, children }: { payload: PagePayload; children: ReactNode }) {
  const page = singlePage(payload)
  if (!page) return null
  return (
    <>
      <SingleContent page={page} />
      <div className="container">{children}</div>
    </>
  )
}
