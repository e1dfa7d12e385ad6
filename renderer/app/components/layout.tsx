import { type ReactNode, type RefObject, createContext, useContext, useEffect, useRef, useState } from 'react'
import { DAMAGE_PAGE_PATH, OFFICES_PAGE_PATH } from '../../../shared/constants.ts'
import { phoneText, telHref } from '../../../shared/contact-links.ts'
import type { SiteSettings } from '../../../shared/content-types.ts'
import { OpeningHours, PhoneAndEmail, PostalAddress } from './contact-details.tsx'
import { LoadingBar } from './loading-bar.tsx'
import { FALLBACK_COMPANY_NAME, SiteLink, SiteNavLink, useSite } from './site-context.tsx'

/**
 * The inner HTML of the layout's parts that do not depend on the page
 * (header, damage bar, footer), rendered once per site settings and menu
 * state by the server and reused (renderer/server/layout-parts.tsx); each part
 * keeps its own element, written by React, with the stored HTML inside it.
 * It is the HTML React writes for the part's children, so the browser
 * hydrates it as it hydrates any page. Null in the browser and while the
 * parts themselves are rendered.
 */
export interface LayoutParts {
  header: string | undefined
  damage: string | undefined
  footer: string | undefined
}
export const LayoutPartsContext = createContext<LayoutParts | null>(null)

/** A part's children, or the stored HTML of them. */
const contentOf = (html: string | undefined, children: () => ReactNode) => (html === undefined ? { children: children() } : { dangerouslySetInnerHTML: { __html: html } })

/**
 * What a visitor with damage needs, within reach on every page while
 * scrolling: the 24/7 damage number to tap and the page on what to do. A bar
 * at the bottom on a phone (where a thumb is), a strip under the header on a
 * wider screen (styles.css); both in the page's HTML, so nothing shifts. It
 * says what it is, on a phone too ("Schade? Bel 24/7"), and gives way to large
 * text and narrow screens: the call link breaks only between its label and the
 * number (`<wbr>`: its text keeps non-breaking spaces, html-validate's
 * tel-non-breaking), and the two links wrap onto two rows where one is too narrow.
 */
export function DamageAction({ site }: { site: SiteSettings | null }) {
  const stored = useContext(LayoutPartsContext)?.damage
  const damagePhone = site?.damagePhone
  if (!damagePhone) return null
  return (
    <aside className="damage-action" aria-label="Schadelijn 24/7" {...contentOf(stored, () => (
      <div className="container damage-action__inner">
        <a className="damage-action__call" href={telHref(damagePhone)}>
          <span>
            {'Schade?\u00a0'}
            <wbr />
            {'Bel\u00a024/7\u00a0'}
            <wbr />
            {phoneText(damagePhone)}
          </span>
        </a>
        <SiteLink className="damage-action__page" href={DAMAGE_PAGE_PATH}>
          Schade melden
        </SiteLink>
      </div>
    ))} />
  )
}

/** The main menu's links: the site's, or the home page alone. */
export const menuOf = (site: SiteSettings | null) => site?.mainNavigation ?? [{ label: 'Home', url: '/' }]

/**
 * The header: the brand, and on a phone a "Menu" toggle that opens the main
 * navigation. The toggle is a `<details>`' `<summary>`, so it opens with a tap
 * before the scripts have arrived (or without them); the navigation beside it
 * shows while it is open (styles.css: `:has(.site-menu[open])`, and the app
 * root's `app--menu-open` once hydrated, see Layout). Once hydrated Escape
 * and a tap on one of its links close it; a navigation renders a new, closed one.
 */
export function Header({ site, menu, currentPath }: { site: SiteSettings | null; menu: RefObject<HTMLDetailsElement | null>; currentPath: string }) {
  const stored = useContext(LayoutPartsContext)?.header
  return (
    <header className="site-header" {...contentOf(stored, () => (
      <div className="container site-header__inner">
        <SiteLink className="site-logo" href="/">
          <span className="site-logo__mark" aria-hidden="true">H</span>
          <span className="site-logo__name">{site?.companyName ?? FALLBACK_COMPANY_NAME}</span>
        </SiteLink>
        {/* A new element for each page: a navigation closes the menu. */}
        <details className="site-menu" ref={menu} key={currentPath}>
          {/* "Menu", open or closed: the browser tells a screen reader whether it is expanded; the page shows it. */}
          <summary className="menu-button" aria-controls="hoofdmenu">
            Menu
          </summary>
        </details>
        <nav id="hoofdmenu" className="site-nav" aria-label="Hoofdmenu">
          <ul>
            {menuOf(site).map((link) => (
              <li key={link.url}>
                <SiteNavLink href={link.url}>{link.label}</SiteNavLink>
              </li>
            ))}
            {site?.damagePhone ? (
              <li className="site-nav__damage">
                <SiteLink href={DAMAGE_PAGE_PATH}>Schade melden</SiteLink>
                <a href={telHref(site.damagePhone)}>{`Schade\u00a024/7:\u00a0${phoneText(site.damagePhone)}`}</a>
              </li>
            ) : null}
          </ul>
        </nav>
      </div>
    ))} />
  )
}

/** What the footer holds: how to reach the company and when, the legal pages, the registrations. */
function FooterContent({ site }: { site: SiteSettings | null }) {
  if (!site) {
    return (
      <div className="container">
        <p>{FALLBACK_COMPANY_NAME}</p>
      </div>
    )
  }
  return (
    <>
      <div className="container site-footer__grid">
        <section aria-labelledby="footer-contact">
          <h2 id="footer-contact">Contact</h2>
          <PostalAddress name={site.companyName} street={site.street} postalCode={site.postalCode} city={site.city} />
          <PhoneAndEmail phone={site.phone} damagePhone={site.damagePhone} email={site.email} />
        </section>
        {/* The global set's hours are the telephone's (docs/craft.md); an office keeps its own (Zwolle on Saturday morning), on the offices' page. */}
        <section aria-labelledby="footer-hours">
          <h2 id="footer-hours">Telefonisch bereikbaar</h2>
          <OpeningHours rows={site.openingHours} />
          <p>
            <SiteLink href={OFFICES_PAGE_PATH}>Openingstijden per kantoor</SiteLink>
          </p>
        </section>
        <section aria-labelledby="footer-legal">
          <h2 id="footer-legal">Goed om te weten</h2>
          <ul className="footer-links">
            {(site.footerNavigation ?? []).map((link) => (
              <li key={link.url}>
                <SiteLink href={link.url}>{link.label}</SiteLink>
              </li>
            ))}
          </ul>
        </section>
      </div>
      <div className="container site-footer__registration">
        {site.footerText ? <p>{site.footerText}</p> : null}
        <p>
          {/* Each number to its public register (the global set's addresses), where a visitor can check it; React leaves a null href out. */}
          <a href={site.afmRegisterUrl as string}>AFM-vergunning {site.afmNumber}</a> ·{' '}
          <a href={site.kifidRegisterUrl as string}>Kifid-aansluitnummer {site.kifidNumber}</a> · <a href={site.kvkRegisterUrl as string}>KvK {site.kvkNumber}</a>
        </p>
      </div>
    </>
  )
}

export function Footer({ site }: { site: SiteSettings | null }) {
  const stored = useContext(LayoutPartsContext)?.footer
  return <footer className="site-footer" {...contentOf(stored, () => <FooterContent site={site} />)} />
}

/** Header, main content and footer of every page, the error page included; the skip link to `#inhoud` comes before it (document.tsx). */
export function Layout({ children, currentPath, error = false }: { children: ReactNode; currentPath: string; error?: boolean }) {
  const site = useSite()
  // The menu's state is the element's own (opened by a tap before hydration too).
  const menu = useRef<HTMLDetailsElement>(null)
  // The page it was opened on: a navigation renders a new, closed menu, and the class goes with it.
  const [menuOpenOn, setMenuOpenOn] = useState<string | null>(null)
  const menuToggled = () => setMenuOpenOn(menu.current?.open ? currentPath : null)
  // A menu opened before hydration (styles.css covers it until then).
  useEffect(menuToggled, [])
  const closeMenu = (details: HTMLDetailsElement) => {
    details.open = false
    // At once, not on the <details>' toggle event, which comes a task later: the menu is gone in the same frame.
    setMenuOpenOn(null)
  }

  return (
    <div
      id="app"
      // The open menu's class (app--menu-open): the page under it does not scroll (styles.css).
      className={`app${error ? ' app--error' : ''}${menuOpenOn === currentPath ? ' app--menu-open' : ''}`}
      // The <details>' toggle, which React passes up from the element like any event.
      onToggle={menuToggled}
      // A tap on a link of the open menu closes it at once: while the next page's data comes (up to
      // NAVIGATION_TIMEOUT_MS), the visitor sees the page under it, the loading bar and the damage bar.
      onClick={(event) => {
        if (menu.current?.open && (event.target as Element).closest('.site-nav a')) closeMenu(menu.current)
      }}
      // Escape closes the open menu and gives the focus back to its toggle.
      onKeyDown={(event) => {
        if (event.key === 'Escape' && menu.current?.open) {
          closeMenu(menu.current)
          ;(menu.current.firstChild as HTMLElement).focus()
        }
      }}
    >
      <LoadingBar error={error} />
      <Header site={site} menu={menu} currentPath={currentPath} />
      <DamageAction site={site} />
      <main id="inhoud" className="main" tabIndex={-1}>
        {children}
      </main>
      <Footer site={site} />
    </div>
  )
}
