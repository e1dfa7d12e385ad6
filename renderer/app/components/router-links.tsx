import { createContext, useContext } from 'react'
import { Link, NavLink, useLocation } from 'react-router-dom'
import type { LinkComponents, SiteLinkProps } from './site-context.tsx'

/** Whether a path of this site is a page the app shows itself: not a file (`/brochure.pdf`) nor the API. */
export function isPagePath(pathname: string): boolean {
  return !/\.[a-z0-9]{2,5}$/i.test(pathname) && !pathname.startsWith('/api')
}

/**
 * True where nothing follows the history to show the next page (the page the
 * browser shows after the app failed for good): links load their page afresh.
 */
export const DocumentLinks = createContext(false)

/** `href` split into the page it leads to (path and query) and its #fragment, when it is a page of this site; undefined otherwise. */
function sitePage(href: string): { page: string; hash: string } | undefined {
  if (!href.startsWith('/') || href.startsWith('//')) return undefined
  const cut = href.indexOf('#')
  const page = cut === -1 ? href : href.slice(0, cut)
  const query = page.indexOf('?')
  if (!isPagePath(query === -1 ? page : page.slice(0, query))) return undefined
  return { page, hash: cut === -1 ? '' : href.slice(cut) }
}

/**
 * Whether `href` is for react-router: a page of this site, except a
 * #fragment of the page on screen, which the browser scrolls to itself; a
 * plain link goes anywhere else (another site, tel:, mailto:, a file).
 */
function routedOn(href: string, pathname: string, search: string): boolean {
  const target = sitePage(href)
  return target !== undefined && !(target.hash !== '' && target.page === `${pathname}${search}`)
}

function useRouted(href: string): boolean {
  const { pathname, search } = useLocation()
  return routedOn(href, pathname, search)
}

/** Whether a menu link is on its own page, as NavLink with `end` decides it: the same path, letter case aside. */
function currentOn(href: string, routed: boolean, pathname: string): boolean {
  if (!routed) return href === pathname
  const [path = href] = href.split(/[?#]/, 1)
  return path.toLowerCase() === pathname.toLowerCase()
}

const useCurrent = (href: string, routed: boolean): boolean => currentOn(href, routed, useLocation().pathname)

/** Whether a menu link (SiteNavLink) is marked current at this location: what its HTML depends on. */
export const isCurrentMenuLink = (href: string, pathname: string, search: string): boolean => currentOn(href, routedOn(href, pathname, search), pathname)

function RouterLink({ href, ...rest }: SiteLinkProps) {
  const reloadDocument = useContext(DocumentLinks)
  if (!useRouted(href)) return <a href={href} {...rest} />
  return <Link to={href} discover="none" reloadDocument={reloadDocument} {...rest} />
}

function RouterNavLink({ href, className, ...rest }: SiteLinkProps) {
  const reloadDocument = useContext(DocumentLinks)
  const routed = useRouted(href)
  const current = useCurrent(href, routed)
  if (!routed) return <a href={href} className={className} aria-current={current ? 'page' : undefined} {...rest} />
  // `end`: current on its own page only. The class is the one given, without NavLink's "active": the stylesheet keys on aria-current.
  return <NavLink to={href} end discover="none" reloadDocument={reloadDocument} className={() => className} {...rest} />
}

/** react-router's `<Link>` and `<NavLink>`, for SiteLink and SiteNavLink (components/site-context.tsx) in the browser. */
export const ROUTER_LINKS: LinkComponents = { Link: RouterLink, NavLink: RouterNavLink }

function MarkupNavLink({ href, ...rest }: SiteLinkProps) {
  const current = useCurrent(href, useRouted(href))
  return <a href={href} aria-current={current ? 'page' : undefined} {...rest} />
}

/**
 * The same links as markup only, for the server: the HTML of ROUTER_LINKS
 * (test/renderer/router-links.test.tsx holds them to it), which the browser
 * hydrates with react-router's. On the server a link has nothing to do but be
 * written, and react-router's `<Link>` costs some 15 µs a link to write, a
 * `<NavLink>` more (about 30 on a page: the render took three times as long;
 * docs/performance-history.md).
 */
export const MARKUP_LINKS: LinkComponents = { Link: (props) => <a {...props} />, NavLink: MarkupNavLink }
