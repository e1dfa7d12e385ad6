import type { Crumb } from '../structured-data.ts'
import { SiteLink } from './site-context.tsx'

/** Where a nested page sits, as links; the last crumb is the page itself. */
export function Breadcrumbs({ crumbs }: { crumbs: Crumb[] }) {
  if (crumbs.length === 0) return null
  return (
    <nav className="breadcrumbs container" aria-label="Kruimelpad">
      <ol>
        {crumbs.map((crumb, index) => (
          <li key={crumb.path}>
            {index === crumbs.length - 1 ? (
              <span aria-current="page">{crumb.name}</span>
            ) : (
              <SiteLink href={crumb.path}>{crumb.name}</SiteLink>
            )}
          </li>
        ))}
      </ol>
    </nav>
  )
}
