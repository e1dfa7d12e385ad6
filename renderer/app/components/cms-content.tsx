import type { ReactNode } from 'react'
import type { EntryBase } from '../../../shared/content-types.ts'
import { contactParts, phoneText } from '../../../shared/contact-links.ts'
import { isUnpublished, publicationDate } from './format.ts'
import { SiteLink } from './site-context.tsx'

// How the CMS's content is shown: its rich text, its plain text with contact
// links, and the card of an entry in a list. One module, so that the screens
// and the error page share one chunk of the browser's bundle for them (each
// chunk costs its own compression overhead on a first visit).

/** Rich text from the CMS, which Craft delivers as HTML. */
export function RichText({ html, className }: { html: string | null | undefined; className?: string }) {
  // React would make any other value into markup as its string.
  if (typeof html !== 'string' || !html) return null
  return <div className={className ? `rich-text ${className}` : 'rich-text'} dangerouslySetInnerHTML={{ __html: html }} />
}

/**
 * Plain text from the CMS with its phone numbers (tel:, E.164, never broken
 * over lines) and e-mail addresses (mailto:) as links.
 */
export function LinkedText({ text }: { text: string }) {
  return contactParts(text).map((part, index) =>
    typeof part === 'string' ? (
      part
    ) : (
      <a key={index} href={part.href}>
        {part.kind === 'tel' ? phoneText(part.text) : part.text}
      </a>
    ),
  )
}

/**
 * One card of a `.cards` list: a heading (a link to the entry when it has a
 * page of its own), whatever the list adds under it, then the intro.
 */
export function Card({
  title,
  href,
  intro,
  id,
  headingLevel = 3,
  children,
}: {
  title: string
  href?: string
  intro?: string | null
  /** Lets other pages link to the card itself. */
  id?: string
  headingLevel?: 2 | 3
  children?: ReactNode
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3'
  return (
    <li id={id} className="card">
      <Heading>{href === undefined ? title : <SiteLink href={href}>{title}</SiteLink>}</Heading>
      {children}
      {intro ? (
        <p>
          <LinkedText text={intro} />
        </p>
      ) : null}
    </li>
  )
}

export const NOT_PUBLISHED_TEXT = 'Nog niet gepubliceerd'

/**
 * An entry's date in a list (the home page's latest news, /actueel): its
 * publication date, or, in a preview of an entry not published (a draft, a
 * post date still to come), that it is not, never the date it may get.
 */
export function PublishedOn({ entry }: { entry: Pick<EntryBase, 'isDraft' | 'status' | 'postDate'> }) {
  const published = publicationDate(entry)
  if (published) return <time dateTime={published.iso}>{published.text}</time>
  return isUnpublished(entry) ? <>{NOT_PUBLISHED_TEXT}</> : null
}
