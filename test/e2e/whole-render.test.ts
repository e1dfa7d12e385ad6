import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE as P } from '../../shared/constants.ts'
import { hydrated, openPage } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'

const store = shippedContent()
// Every request rendered: once the home page's latest news is cached, the page is rendered whole (renderToString).
const { system, browser } = await systemWithBrowser(t, { PAGE_CACHE: 'false' })

t.test('a home page rendered whole hydrates without a warning and works on the client', async (t) => {
  await (await request(`${system.url}/`)).body.dump()
  const served = await (await request(`${system.url}/`)).body.text()
  t.notMatch(served, /<!--\$\?-->/, 'the page the browser gets is rendered whole')
  t.match(served, /data-loaded="true"/)

  const watched = await openPage(browser)
  const { page } = watched
  await page.goto(`${system.url}/`)
  await hydrated(page)
  t.same(watched.problems, [], 'no console errors or warnings: the markup matched what the client rendered')
  t.ok(await page.isVisible('.latest-news [data-loaded="true"]'), 'the latest news is there')

  await page.evaluate(() => {
    ;(window as unknown as { sameDocument: boolean }).sameDocument = true
  })
  await page.click('nav a[href="/over-ons"]')
  await page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, titleOf(store, `${P}About`))
  t.ok(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true), 'navigated on the client')
  await page.goBack()
  await page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, titleOf(store, `${P}Home`))
  t.same(watched.problems, [], 'still no console errors or warnings')
  await page.context().close()
})
