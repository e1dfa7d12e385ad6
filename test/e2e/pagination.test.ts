import t from 'tap'
import type { Page } from 'playwright-core'
import { hydrated } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'

// Paging through the news in the browser: "Volgende" and "Vorige" are the
// router's links (no new document), and the head's rel="prev"/"next" follow
// the page shown, as the server would have sent them.
const SITE = 'https://www.havenborg.example'
const { system, browser } = await systemWithBrowser(t, { SITE_URL: SITE })

/** The head's rel="prev" and rel="next", and how many such links the whole document has. */
const relLinks = (page: Page) =>
  page.evaluate(() => ({
    head: Object.fromEntries([...document.head.querySelectorAll('link[rel="prev"], link[rel="next"]')].map((link) => [link.getAttribute('rel'), link.getAttribute('href')])),
    all: document.querySelectorAll('link[rel="prev"], link[rel="next"]').length,
  }))

t.test('"Volgende" and "Vorige" move between the pages on the client, and the head follows', async (t) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } })
  t.teardown(() => context.close())
  const page = await context.newPage()
  await page.goto(`${system.url}/actueel`)
  await hydrated(page)
  t.same(await relLinks(page), { head: { next: `${SITE}/actueel?pagina=2` }, all: 1 }, 'page 1: rel="next"')
  // A document loaded afresh would not keep this.
  await page.evaluate(() => Object.assign(window, { samePageMarker: true }))

  await page.getByRole('link', { name: 'Volgende pagina' }).click()
  await page.waitForURL(`${system.url}/actueel?pagina=2`)
  await page.locator('.pagination a[aria-current="page"]', { hasText: '2' }).waitFor()
  t.same(await relLinks(page), { head: { prev: `${SITE}/actueel` }, all: 1 }, 'page 2: rel="prev", no rel="next" left behind')
  t.equal(await page.locator('.pagination a', { hasText: 'Volgende' }).count(), 0, 'no "Volgende" link on the last page')

  await page.getByRole('link', { name: 'Vorige pagina' }).click()
  await page.waitForURL(`${system.url}/actueel`)
  await page.locator('.pagination a[aria-current="page"]', { hasText: '1' }).waitFor()
  t.same(await relLinks(page), { head: { next: `${SITE}/actueel?pagina=2` }, all: 1 }, 'back on page 1: rel="next" again')
  t.equal(await page.evaluate(() => 'samePageMarker' in window), true, 'both steps were the router\'s, in one document')
})
