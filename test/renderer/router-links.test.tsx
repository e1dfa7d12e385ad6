import { renderToString } from 'react-dom/server'
import { StaticRouter } from 'react-router-dom'
import t from 'tap'
import { MARKUP_LINKS, ROUTER_LINKS } from '../../renderer/app/components/router-links.tsx'
import { type LinkComponents, LinkContext, SiteLink, SiteNavLink } from '../../renderer/app/components/site-context.tsx'

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
