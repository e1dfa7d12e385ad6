import t from 'tap'
import { DEFAULT_SITE_HANDLE as P } from '../../shared/constants.ts'
import { createRouteTable } from '../../shared/routes.ts'
import { openPage } from '../helpers/browser.ts'
import { shippedContent, slugsOf, titleOf } from '../helpers/content.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'

const store = shippedContent()
const { system, browser } = await systemWithBrowser(t)

t.test('with JavaScript off every route is readable', async (t) => {
  const watched = await openPage(browser, { javaScriptEnabled: false })
  const { page } = watched
  const paths = [
    ...createRouteTable(P).staticPaths(),
    ...slugsOf(store, 'jobs').map((slug) => `/jobs/${slug}`),
    ...slugsOf(store, 'topical').map((slug) => `/topical/${slug}`),
    ...slugsOf(store, 'services').map((slug) => `/services/${slug}`),
  ]
  for (const path of paths) {
    const response = await page.goto(`${system.url}${path}`)
    t.equal(response?.status(), 200, `${path} answers`)
    const heading = (await page.textContent('main h1'))?.trim() ?? ''
    t.ok(heading.length > 0, `${path} shows its heading "${heading}"`)
    t.ok(await page.isVisible('footer'), `${path} has its footer`)
  }
  t.equal(watched.requests.filter((url) => url.includes('_payload.json')).length, 0, 'no payload was fetched')
  await page.context().close()
})

t.test('with JavaScript off links are plain links and the menu stays reachable', async (t) => {
  const watched = await openPage(browser, { javaScriptEnabled: false, viewport: { width: 390, height: 800 } })
  const { page } = watched
  await page.goto(`${system.url}/`)
  t.ok(await page.isVisible('#hoofdmenu a[href="/werken-bij"]'), 'the navigation shows without the menu button')
  await Promise.all([page.waitForURL('**/werken-bij'), page.click('#hoofdmenu a[href="/werken-bij"]')])
  t.equal(await page.textContent('main h1'), titleOf(store, `${P}JobsOverview`))
  const job = slugsOf(store, 'jobs')[0]
  await Promise.all([page.waitForURL(`**/werken-bij/${job}`), page.click(`a[href="/werken-bij/${job}"]`)])
  t.equal(await page.textContent('main h1'), titleOf(store, 'jobs', job))
  await page.context().close()
})
