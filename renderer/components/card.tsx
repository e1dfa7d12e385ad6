import type { ReactNode } from 'react'
import { LinkedText } from './linked-text.tsx'
import { SiteLink } from './site-context.tsx'

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
