import t from 'tap'
import type { Page } from 'playwright-core'
import { hydrated } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { sitemapLocs } from '../helpers/sitemap.ts'

// On a phone (390 px), everything a visitor taps is at least 44×44 px: menu
// items, footer links, phone numbers and e-mail addresses, crumbs, pagination,
// buttons and cards. Only links inline in running text are exempt (WCAG 2.5.8's
// inline exception): rich text and sentences of the CMS's plain text. A card is
// one link, its title's, and a tap anywhere on it follows that link.
const { system, browser } = await systemWithBrowser(t)

const PHONE = { width: 390, height: 844 }
const MIN_TARGET_PX = 44
/** How far inside a card's corner a tap lands: past its rounded corner (--radius, 10 px). */
const CORNER_INSET_PX = 12
/** Rounding of fractional layout sizes. */
const TOLERANCE_PX = 0.5

const paths = (await sitemapLocs(system.url)).map((loc) => {
  const url = new URL(loc)
  return `${url.pathname}${url.search}`
})
/** The pages that show card grids, each with the kind of cards on it. */
const CARD_PAGES = ['/', '/onze-verzekeringen', '/actueel', '/actueel?pagina=2', '/werken-bij', '/onze-dienstverlening']
/** A card that is a link: the title of an entry with a page of its own (an office's card has none). */
const CARD_LINK = '.card > :is(h2, h3) > a'

/**
 * The interactive elements a visitor sees on the page that are smaller than
 * 44×44 px, each named by its parent, tag, class and text. A card's link is
 * measured as the card it covers (its ::after; the card test below proves it).
 */
const smallTargets = (page: Page, scope = 'body'): Promise<string[]> =>
  page.evaluate(
    ({ min, tolerance, cardLink, scope }) => {
      // No functions declared in here: the test's TypeScript loader would name them with a helper the page lacks.
      const small: string[] = []
      for (const element of document.querySelector(scope)?.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])') ?? []) {
        if (!element.checkVisibility({ visibilityProperty: true })) continue
        // Inline in running text: the CMS's rich text, or a paragraph whose own words (without its links) make a sentence.
        if (element.closest('.rich-text')) continue
        const paragraph = element.closest('p')?.cloneNode(true) as Element | undefined
        if (paragraph) {
          for (const link of paragraph.querySelectorAll('a')) link.remove()
          if (/\p{L}[.?!](\s|$)/u.test(paragraph.textContent ?? '')) continue
        }
        const box = (element.matches(cardLink) ? (element.closest('.card') ?? element) : element).getBoundingClientRect()
        // Moved out of the page until it has the focus (the skip link).
        if (box.bottom + window.scrollY <= 0 || box.width === 0) continue
        if (box.width + tolerance >= min && box.height + tolerance >= min) continue
        const parent = element.parentElement
        const name = [parent, element].map((node) => (node ? `${node.tagName.toLowerCase()}${node.getAttribute('class') ? `.${(node.getAttribute('class') ?? '').split(' ').join('.')}` : ''}` : '')).join(' > ')
        small.push(`${name} "${(element.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40)}": ${Math.round(box.width)}×${Math.round(box.height)}`)
      }
      return small
    },
    { min: MIN_TARGET_PX, tolerance: TOLERANCE_PX, cardLink: CARD_LINK, scope },
  )

t.test('at 390 px, on every page of the sitemap, every tap target outside running text is at least 44×44 px, the opened menu included', async (t) => {
  const context = await browser.newContext({ viewport: PHONE })
  t.teardown(() => context.close())
  const page = await context.newPage()
  t.ok(paths.length > 30, `${paths.length} pages`)
  const small: string[] = []
  for (const path of [...new Set([...paths, '/actueel?pagina=2'])]) {
    const response = await page.goto(`${system.url}${path}`)
    if (response?.status() !== 200) small.push(`${path}: status ${response?.status()}`)
    await hydrated(page)
    for (const target of await smallTargets(page)) small.push(`${path}: ${target}`)
    await page.locator('.menu-button').click()
    await page.locator('#hoofdmenu a').first().waitFor({ state: 'visible' })
    for (const target of await smallTargets(page, '.site-header')) small.push(`${path}, menu open: ${target}`)
  }
  t.same([...new Set(small)], [], `every target of ${paths.length} pages measured`)
})

interface CardLinks {
  title: string
  /** The card's links (its title's, and any tel: or mailto: of its intro), by href and accessible text. */
  links: { href: string; text: string; nested: boolean }[]
  cardLink: string | undefined
  /** Which link, if any, a tap reaches at the card's corners and centre (in view, above the damage bar). */
  reached: (string | null)[]
  /** Other links of the card (a phone number in its intro) that a tap at their middle does not reach. */
  buried: string[]
  /** The focus ring of the card's link is drawn by its ::after, which covers the card. */
  ringOnCard: boolean
}

const cardsOf = (page: Page): Promise<CardLinks[]> =>
  page.evaluate(({ cardLink, inset }) => {
    const cards = [...document.querySelectorAll<HTMLElement>('.card')].filter((card) => card.querySelector(cardLink))
    return cards.map((card) => {
      card.scrollIntoView({ block: 'center', behavior: 'instant' })
      const box = card.getBoundingClientRect()
      const link = card.querySelector<HTMLAnchorElement>(cardLink)
      // Inside the rounded corners (var(--radius), 10 px), which are outside the card.
      const points: [number, number][] = [
        [box.left + inset, box.top + inset],
        [box.right - inset, box.top + inset],
        [box.left + inset, box.bottom - inset],
        [box.right - inset, box.bottom - inset],
        [box.left + box.width / 2, box.top + box.height / 2],
      ]
      const reached = points.map(([x, y]) => document.elementFromPoint(x, y)?.closest('a')?.getAttribute('href') ?? null)
      // A contact link of the intro stays a link of its own, above the cover.
      const buried = [...card.querySelectorAll('a')]
        .filter((a) => a !== link)
        .filter((a) => {
          const own = a.getBoundingClientRect()
          return document.elementFromPoint(own.left + own.width / 2, own.top + own.height / 2)?.closest('a') !== a
        })
        .map((a) => a.getAttribute('href') ?? '')
      link?.focus()
      const after = link ? getComputedStyle(link, '::after') : undefined
      const ringOnCard = !!link && link.matches(':focus-visible') && after?.position === 'absolute' && after.outlineStyle === 'solid' && getComputedStyle(card).position === 'relative'
      link?.blur()
      return {
        title: (card.querySelector(':is(h2, h3)')?.textContent ?? '').trim(),
        links: [...card.querySelectorAll('a')].map((a) => ({
          href: a.getAttribute('href') ?? '',
          text: (a.getAttribute('aria-label') ?? a.textContent ?? '').trim(),
          nested: a.querySelector('a, button, input, select, textarea') !== null,
        })),
        cardLink: link?.getAttribute('href') ?? undefined,
        reached,
        buried,
        ringOnCard,
      }
    })
  }, { cardLink: CARD_LINK, inset: CORNER_INSET_PX })

t.test('every card is one link, named by its title; a tap anywhere on it reaches that link; the focus ring surrounds the card', async (t) => {
  const context = await browser.newContext({ viewport: PHONE })
  t.teardown(() => context.close())
  const page = await context.newPage()
  let counted = 0
  let withContactLinks = 0
  const wrong: string[] = []
  for (const path of CARD_PAGES) {
    await page.goto(`${system.url}${path}`)
    await hydrated(page)
    // The home page's news arrives after the shell.
    if (path === '/') await page.locator('.latest-news__content[data-loaded="true"]').waitFor()
    const cards = await cardsOf(page)
    t.ok(cards.length >= 2, `${path}: ${cards.length} cards`)
    counted += cards.length
    for (const card of cards) {
      const own = card.links.filter((link) => !/^(tel|mailto):/.test(link.href))
      const name = `${path} "${card.title}"`
      if (card.links.length > own.length) withContactLinks++
      if (own.length !== 1) wrong.push(`${name}: ${own.length} links to pages`)
      if (own[0]?.text !== card.title) wrong.push(`${name}: named "${own[0]?.text}"`)
      if (card.links.some((link) => link.nested)) wrong.push(`${name}: an interactive element inside a link`)
      const missed = card.reached.filter((href) => href !== card.cardLink)
      if (missed.length > 0) wrong.push(`${name}: a tap reaches ${missed.join(', ')}, not ${card.cardLink}`)
      if (card.buried.length > 0) wrong.push(`${name}: covered by the card's link: ${card.buried.join(', ')}`)
      if (!card.ringOnCard) wrong.push(`${name}: the focus ring is not on the card`)
    }
  }
  t.same(wrong, [], 'one link a card, its title, the whole card its target and its focus ring')
  t.ok(counted > 25, `${counted} cards`)
  t.ok(withContactLinks > 0, `${withContactLinks} card(s) with a contact link in the intro`)
})

t.test('a click on the lower-right corner of a card opens its page', async (t) => {
  const context = await browser.newContext({ viewport: PHONE })
  t.teardown(() => context.close())
  const page = await context.newPage()
  for (const path of CARD_PAGES) {
    await page.goto(`${system.url}${path}`)
    await hydrated(page)
    const card = page.locator('.card').filter({ has: page.locator(':scope > :is(h2, h3) > a') }).last()
    const href = await card.locator(':scope > :is(h2, h3) > a').getAttribute('href')
    await card.evaluate((element) => element.scrollIntoView({ block: 'center', behavior: 'instant' }))
    const box = await card.boundingBox()
    if (!box || !href) {
      t.fail(`${path}: a card with a link`)
      continue
    }
    await page.mouse.click(box.x + box.width - CORNER_INSET_PX, box.y + box.height - CORNER_INSET_PX)
    await page.waitForURL(`${system.url}${href}`)
    t.pass(`${path}: the last card's corner opened ${href}`)
  }
})
