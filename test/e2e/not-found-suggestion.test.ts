import t from 'tap'
import { DEFAULT_SITE_HANDLE as P } from '../../shared/constants.ts'
import { hydrated, openPage } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'

/**
 * Issue 49, finding 6: the stored 404 page with a visitor's own "Bedoelde u
 * …?" filled in by the gateway hydrates as the page React renders for it,
 * and its link navigates on the client.
 */
const store = shippedContent()
const { system, browser } = await systemWithBrowser(t)

t.test("the 404's suggestion hydrates and leads to the page meant", async (t) => {
  // The first 404 renders and stores the page; the next is that page with its own fields.
  await (await fetch(`${system.url}/bestaat-niet`)).text()
  const watched = await openPage(browser)
  const { page } = watched
  await page.goto(`${system.url}/kantorn`)
  await hydrated(page)
  await page.evaluate(() => {
    ;(window as unknown as { sameDocument: boolean }).sameDocument = true
  })
  t.same(watched.problems.filter((problem) => !problem.includes('404')), [], 'no console errors or warnings: the filled-in page is the page React renders')
  t.equal(await page.textContent('.error-page__suggestion'), 'Bedoelde u /kantoren?')
  await page.click('.error-page__suggestion a')
  await page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, titleOf(store, `${P}Establishments`))
  t.ok(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true), 'on the client: no full page load')
  t.equal(new URL(page.url()).pathname, '/kantoren')
  await page.context().close()
})
