import type { ReactNode } from 'react'
import type { OpeningHours as OpeningHoursRow } from '../../shared/content-types.ts'

/** A term and what it stands for: a day and its hours, a fact of a job. */
export interface Description {
  term: string
  details: ReactNode
}

/** A <dl>, each term with its details in a <div> of its own (the styles lay out the pairs). */
export function DescriptionList({ className, items }: { className: string; items: readonly Description[] }) {
  return (
    <dl className={className}>
      {items.map(({ term, details }) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{details}</dd>
        </div>
      ))}
    </dl>
  )
}

/** Opening hours, a day a row: the company's in the footer, each office's with the office. */
export function OpeningHours({ rows }: { rows: readonly OpeningHoursRow[] | null }) {
  return <DescriptionList className="opening-hours" items={(rows ?? []).map((row) => ({ term: row.day, details: row.hours }))} />
}
