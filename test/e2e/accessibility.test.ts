import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import t from 'tap'
import { DEFAULT_SITE_HANDLE as P } from '../../shared/constants.ts'
import { createRouteTable } from '../../shared/routes.ts'
import { hydrated, openPage } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { shippedContent, slugsOf } from '../helpers/content.ts'

/** Evaluated through the debugging protocol: the site's CSP (no inline scripts) stays in force while axe runs. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const store = shippedContent()
const { system, browser } = await systemWithBrowser(t)

interface Violation {
  id: string
  help: string
  nodes: { target: string[] }[]
}

async function violations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE)
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Violation[] }> } }).axe
    return axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
  })
  return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`)
}

const paths = [
  ...createRouteTable(P).staticPaths(),
  ...slugsOf(store, 'jobs').map((slug) => `/jobs/${slug}`),
  ...slugsOf(store, 'topical').map((slug) => `/topical/${slug}`),
  '/actueel?pagina=2',
  '/bestaat-niet',
  // Previews, with the preview bar and a draft's marker; last, as a browser keeps the preview's cookie.
  '/over-ons?x-craft-preview=1&token=preview-token-about-draft',
  '/topical/concept-nieuwsbericht-renteverandering?x-craft-preview=1&token=preview-token-new-article',
]

t.test('axe finds no WCAG 2.1 AA violation on any route', async (t) => {
  const watched = await openPage(browser)
  for (const path of paths) {
    await watched.page.goto(`${system.url}${path}`)
    await hydrated(watched.page)
    t.same(await violations(watched.page), [], path)
  }
  await watched.page.context().close()
})

t.test('axe finds no violation with the menu open on a small screen; the menu works by keyboard', async (t) => {
  const watched = await openPage(browser, { viewport: { width: 375, height: 740 } })
  const { page } = watched
  await page.goto(`${system.url}/`)
  await hydrated(page)
  await page.keyboard.press('Tab')
  t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Naar de inhoud', 'the skip link comes first')
  await page.keyboard.press('Tab')
  await page.keyboard.press('Tab')
  t.equal(await page.evaluate(() => document.activeElement?.className), 'menu-button', 'then the menu button')
  await page.keyboard.press('Enter')
  t.equal(await page.evaluate(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open), true, 'Enter opens it')
  t.ok(await page.isVisible('#hoofdmenu a[href="/contact"]'))
  t.same(await violations(page), [], 'menu open')
  await page.keyboard.press('Enter')
  t.equal(await page.evaluate(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open), false, 'Enter closes it again')
  await page.context().close()
})
