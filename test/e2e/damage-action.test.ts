import t from 'tap'
import type { Page } from 'playwright-core'
import { DAMAGE_PAGE_PATH } from '../../shared/constants.ts'
import { hydrated } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { sitemapLocs } from '../helpers/sitemap.ts'

// A visitor with damage, on a phone or a laptop, on any page: the 24/7 damage
// number is a tap away at the top of the page, at its end and on the way back
// up; the opened menu has it too; Escape closes the menu.
const { system, browser } = await systemWithBrowser(t)

const DAMAGE_TEL = 'tel:+31881234599'
const HEIGHT = 800
const paths = (await sitemapLocs(system.url)).map((loc) => new URL(loc).pathname)

/** Whether a link to the damage number is in the window and is what a tap at its middle reaches (nothing covers it). */
const damageCallReachable = (page: Page): Promise<boolean> =>
  page.evaluate((href) => {
    for (const link of document.querySelectorAll<HTMLAnchorElement>(`a[href="${href}"]`)) {
      const box = link.getBoundingClientRect()
      if (box.width === 0 || box.height === 0 || box.top < 0 || box.bottom > window.innerHeight || box.left < 0 || box.right > window.innerWidth) continue
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)
      if (hit && link.contains(hit)) return true
    }
    return false
  }, DAMAGE_TEL)

/** Scrolls the window at once (no smooth scrolling) and waits until it is there. */
async function scrollTo(page: Page, top: number | 'end'): Promise<void> {
  await page.evaluate((to) => window.scrollTo({ top: to === 'end' ? document.documentElement.scrollHeight : to, behavior: 'instant' }), top)
  await page.waitForFunction(() => new Promise((resolve) => requestAnimationFrame(() => resolve(true))))
}

for (const width of [390, 1366]) {
  t.test(`at ${width} px, on every page of the sitemap, the damage number is in reach at the top, at the end and on the way back up`, async (t) => {
    const context = await browser.newContext({ viewport: { width, height: HEIGHT } })
    t.teardown(() => context.close())
    const page = await context.newPage()
    t.ok(paths.length > 30, `${paths.length} pages`)
    const out: string[] = []
    for (const path of paths) {
      await page.goto(`${system.url}${path}`)
      await hydrated(page)
      if (!(await damageCallReachable(page))) out.push(`${path}: at the top`)
      await scrollTo(page, 'end')
      if (!(await damageCallReachable(page))) out.push(`${path}: at the end`)
      const end = await page.evaluate(() => window.scrollY)
      await scrollTo(page, Math.max(0, end - 300))
      if (!(await damageCallReachable(page))) out.push(`${path}: a little back up`)
    }
    t.same(out, [], 'a tap on the damage number reaches it everywhere')
    const label = await page.locator(`.damage-action a[href="${DAMAGE_TEL}"]`).innerText()
    t.match(label, /088\s?.\s?123\s45\s99/, `its text names the number (${label})`)
    t.equal(await page.locator(`.damage-action a[href="${DAMAGE_PAGE_PATH}"]`).count(), 1, 'and the damage page beside it')
  })
}

t.test('on a phone, the opened menu has the damage page and number; Escape closes it and the focus goes back to its button', async (t) => {
  const context = await browser.newContext({ viewport: { width: 390, height: HEIGHT } })
  t.teardown(() => context.close())
  const page = await context.newPage()
  await page.goto(`${system.url}/over-ons`)
  await hydrated(page)
  const button = page.locator('.menu-button')
  await button.click()
  t.equal(await page.evaluate(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open), true, 'the menu is open')
  t.ok(await page.locator(`#hoofdmenu a[href="${DAMAGE_PAGE_PATH}"]`).isVisible(), 'the damage page in the menu')
  t.ok(await page.locator(`#hoofdmenu a[href="${DAMAGE_TEL}"]`).isVisible(), 'and the 24/7 number')
  await page.keyboard.press('Escape')
  await page.waitForFunction(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open === false)
  t.notOk(await page.locator('#hoofdmenu').isVisible(), 'Escape closed it')
  t.ok(await button.evaluate((element) => element === document.activeElement), 'the focus is on the menu button again')
  const wide = await browser.newContext({ viewport: { width: 1366, height: HEIGHT } })
  t.teardown(() => wide.close())
  const desktop = await wide.newPage()
  await desktop.goto(`${system.url}/over-ons`)
  t.notOk(await desktop.locator(`#hoofdmenu a[href="${DAMAGE_PAGE_PATH}"]`).isVisible(), 'on a wide screen the strip has it, not the header\'s navigation')
})
