import { type MouseEvent, createContext, useContext } from 'react'
import { useHref, useLinkClickHandler, useLocation } from 'react-router-dom'
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

/**
 * What react-router's `<Link>` draws and does for a link to a page of this
 * site (no prefetching, no route discovery): its href, and on a plain click a
 * client navigation, after the link's own onClick unless that prevented it;
 * with `reloadDocument`, the href only. Made of the hooks `<Link>` itself is
 * made of: `<Link>` brings react-router's prefetching for framework mode into
 * the bundle, 2.5 KB gzip of a first visit (docs/performance-history.md).
 * test/renderer/router-links.test.tsx holds its HTML to `<Link>`'s and
 * `<NavLink>`'s, test/e2e/navigation.test.ts its clicks.
 */
function RoutedLink({ href, reloadDocument, onClick, target, ...rest }: SiteLinkProps & { reloadDocument: boolean }) {
  const follow = useLinkClickHandler<HTMLAnchorElement>(href, { target })
  const handleClick = (event: MouseEvent<HTMLAnchorElement>): void => {
    onClick?.(event)
    if (!event.defaultPrevented) follow(event)
  }
  return <a {...rest} href={useHref(href)} onClick={reloadDocument ? onClick : handleClick} target={target} />
}

function RouterLink({ href, ...rest }: SiteLinkProps) {
  const reloadDocument = useContext(DocumentLinks)
  if (!useRouted(href)) return <a href={href} {...rest} />
  return <RoutedLink href={href} reloadDocument={reloadDocument} {...rest} />
}

function RouterNavLink({ href, ...rest }: SiteLinkProps) {
  const reloadDocument = useContext(DocumentLinks)
  const routed = useRouted(href)
  const current = useCurrent(href, routed)
  if (!routed) return <a href={href} aria-current={current ? 'page' : undefined} {...rest} />
  // Current on its own page only, as `<NavLink end>`; no "active" class: the stylesheet keys on aria-current.
  return <RoutedLink href={href} reloadDocument={reloadDocument} {...rest} aria-current={current ? 'page' : undefined} />
}

/** The links of react-router's `<Link>` and `<NavLink>`, for SiteLink and SiteNavLink (components/site-context.tsx) in the browser. */
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
