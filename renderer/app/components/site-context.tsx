import { type AnchorHTMLAttributes, type ComponentType, createContext, useContext } from 'react'
import type { SiteSettings } from '../../../shared/content-types.ts'

export const FALLBACK_COMPANY_NAME = 'Havenborg Assurantiën'

export const SiteContext = createContext<SiteSettings | null>(null)

export function useSite(): SiteSettings | null {
  return useContext(SiteContext)
}

export interface SiteLinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  href: string
}

/** The components that draw the site's links, given by SiteRoutes: react-router's in the browser, their markup on the server (components/router-links.tsx). */
export interface LinkComponents {
  Link: ComponentType<SiteLinkProps>
  /** A link of the main menu, marked `aria-current="page"` on its own page. */
  NavLink: ComponentType<SiteLinkProps>
}

const PlainLink = (props: SiteLinkProps) => <a {...props} />

/**
 * Which components draw links, handed down from the routes rather than
 * imported: the screens are chunks of their own, and a screen that imported
 * react-router would split it off React DOM's chunk into one of its own, and
 * the links into another, 0.9 KB gzip more on a first visit (docs/performance-history.md).
 */
export const LinkContext = createContext<LinkComponents>({ Link: PlainLink, NavLink: PlainLink })

/** A link: in the browser react-router's `<Link>` when it leads to another page of this site. */
export function SiteLink(props: SiteLinkProps) {
  const { Link } = useContext(LinkContext)
  return <Link {...props} />
}

/** A link of the main menu: in the browser react-router's `<NavLink>`; `aria-current="page"` on its own page. */
export function SiteNavLink(props: SiteLinkProps) {
  const { NavLink } = useContext(LinkContext)
  return <NavLink {...props} />
}
