import { renderToString } from 'react-dom/server'
import { Link, NavLink, StaticRouter, useLocation } from 'react-router-dom'
import t from 'tap'
import { MARKUP_LINKS, ROUTER_LINKS, isPagePath } from '../../renderer/app/components/router-links.tsx'
import { type LinkComponents, LinkContext, SiteLink, SiteNavLink, type SiteLinkProps } from '../../renderer/app/components/site-context.tsx'

/**
 * The server writes links as markup (MARKUP_LINKS) and the browser hydrates
 * them with react-router's <Link> and <NavLink> (ROUTER_LINKS): both must
 * write the same HTML for every kind of link, or the hydrated page keeps the
 * server's attributes (aria-current on the wrong menu item, say).
 */
const HREFS = [
  '/',
  '/over-ons',
  '/Over-Ons',
  '/over-ons/',
  '/actueel?pagina=2',
  '/onze-verzekeringen#autoverzekering',
  '#inhoud',
  'https://example.org/elders',
  '//example.org/elders',
  'tel:+31101234567',
  'mailto:info@example.org',
  '/documenten/voorwaarden.pdf',
  '/api/graphql',
]
const LOCATIONS = ['/', '/over-ons', '/onze-verzekeringen', '/actueel?pagina=2']

/** Each link's attributes in one order: React writes them in the order given, and hydration does not compare the order. */
const sortedAttributes = (html: string): string =>
  html.replace(/<a ([^>]*)>/g, (_tag, attributes: string) => `<a ${(attributes.match(/[a-z-]+="[^"]*"/g) ?? []).sort().join(' ')}>`)

const links = (components: LinkComponents, location: string): string =>
  sortedAttributes(renderToString(
    <StaticRouter location={location}>
      <LinkContext.Provider value={components}>
        {HREFS.map((href) => (
          <p key={href}>
            <SiteLink href={href} className="link">
              {href}
            </SiteLink>
            <SiteNavLink href={href}>{href}</SiteNavLink>
            <SiteNavLink href={href} className="menu-link">
              {href}
            </SiteNavLink>
          </p>
        ))}
      </LinkContext.Provider>
    </StaticRouter>,
  ))

t.test('the server writes the same links as react-router writes in the browser', async (t) => {
  for (const location of LOCATIONS) {
    const markup = links(MARKUP_LINKS, location)
    t.equal(markup, links(ROUTER_LINKS, location), `on ${location}`)
    t.notMatch(markup, /data-discover|class="[^"]*active/, `on ${location}: nothing but the given attributes`)
  }
})

t.test('a menu link is current on its own page only', async (t) => {
  const current = (location: string): string[] =>
    [...links(MARKUP_LINKS, location).matchAll(/<a aria-current="page"(?: class="[^"]*")? href="([^"]*)">/g)].map((match) => match[1] ?? '')
  t.same(current('/over-ons'), ['/over-ons', '/over-ons', '/Over-Ons', '/Over-Ons'], 'the page, letter case aside; not with a trailing slash')
  t.same(current('/'), ['/', '/'], 'the home page is not current everywhere')
  t.same(current('/actueel?pagina=2'), ['/actueel?pagina=2', '/actueel?pagina=2'], 'the query aside')
})

/** Whether ROUTER_LINKS draws `href` as a link for react-router on the page `page` (path and query): a page of this site, not a #fragment of `page`. */
function routed(href: string, page: string): boolean {
  if (!href.startsWith('/') || href.startsWith('//')) return false
  const [path = href] = href.split(/[?#]/, 1)
  const cut = href.indexOf('#')
  return isPagePath(path) && !(cut !== -1 && href.slice(0, cut) === page)
}

function useRoutedHere(href: string): boolean {
  const { pathname, search } = useLocation()
  return routed(href, `${pathname}${search}`)
}

/** react-router's own `<Link>` and `<NavLink>` wherever ROUTER_LINKS draws a link for react-router, as the browser drew them before ROUTER_LINKS was made of their hooks. */
const REACT_ROUTER_LINKS: LinkComponents = {
  Link: ({ href, ...rest }: SiteLinkProps) =>
    useRoutedHere(href) ? <Link to={href} discover="none" {...rest} /> : <ROUTER_LINKS.Link href={href} {...rest} />,
  NavLink: ({ href, className, ...rest }: SiteLinkProps) =>
    useRoutedHere(href) ? (
      <NavLink to={href} end discover="none" className={() => className} {...rest} />
    ) : (
      <ROUTER_LINKS.NavLink href={href} className={className} {...rest} />
    ),
}

t.test("the browser's links write what react-router's <Link> and <NavLink> write", async (t) => {
  for (const location of LOCATIONS) t.equal(links(ROUTER_LINKS, location), links(REACT_ROUTER_LINKS, location), `on ${location}`)
})
