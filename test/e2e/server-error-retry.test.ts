import t from 'tap'
import { DEFAULT_SITE_HANDLE as P, GENERIC_ERROR_HEADING } from '../../shared/constants.ts'
import { hydrated, launchBrowser, openPage } from '../helpers/browser.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'
import { startFaultySystem } from '../helpers/fault-upstream.ts'

/**
 * Issue 49, finding 1, on the server's own error page: a failed client
 * navigation ends in a full load, and while the CMS fails that is the
 * gateway's error page. Its "Probeer het opnieuw" is the one tap that gets
 * the page once the CMS answers again (failed-navigation.test.ts covers the
 * client's own failed view).
 */
const { system, upstream } = await startFaultySystem(t)
const browser = await launchBrowser()
t.teardown(() => browser.close())
const TARGET = '/kantoren'

t.test("the server's error page has a link that tries again, and one tap on it gets the page once the CMS is back", async (t) => {
  const { page } = await openPage(browser, { viewport: { width: 390, height: 844 } })
  t.teardown(() => page.context().close())
  upstream.behave = () => ({ kind: 'answer', status: 500, body: '{"error":"down"}' })
  const answer = await page.goto(`${system.url}${TARGET}`)
  await hydrated(page)
  t.equal(answer?.status(), 502, 'the CMS fails: the 502 page')
  t.same(
    await page.evaluate(() => ({
      heading: document.querySelector('main h1')?.textContent,
      retry: [...document.querySelectorAll('main a')].find((link) => link.textContent === 'Probeer het opnieuw')?.getAttribute('href'),
    })),
    { heading: GENERIC_ERROR_HEADING, retry: TARGET },
    'it says so, with a link to the same address',
  )

  upstream.behave = () => ({ kind: 'pass' })
  const heading = titleOf(shippedContent(), `${P}Establishments`)
  await page.evaluate(() => ((window as unknown as { kept: boolean }).kept = true))
  await page.click('main a:text-is("Probeer het opnieuw")')
  await page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, heading)
  t.ok(await page.evaluate(() => (window as unknown as { kept?: boolean }).kept === true), 'one tap: the page, on the client')
  t.equal(new URL(page.url()).pathname, TARGET)
})
