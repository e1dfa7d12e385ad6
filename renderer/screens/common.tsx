import type { ReactNode } from 'react'
import type { EntryData, SinglePage } from '../../shared/content-types.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { LinkedText, RichText } from '../components/cms-content.tsx'
import { dataOf } from './types.ts'

export function singlePage(payload: PagePayload, key = 'page'): SinglePage | null {
  return dataOf<EntryData<SinglePage>>(payload, key)?.entry ?? null
}

export function PageIntro({ title, intro, children }: { title: string; intro?: string | null; children?: ReactNode }) {
  return (
    <header className="page-intro">
      <div className="container">
        <h1>{title}</h1>
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
      <PageIntro title={page.title} intro={page.intro} />
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
