import t from 'tap'
import type { Page, Request, Route } from 'playwright-core'
import { LOAD_FAILED_MESSAGE, NAVIGATION_TIMEOUT_MS, OFFLINE_MESSAGE, PAYLOAD_SUFFIX } from '../../shared/constants.ts'
import { errorPayload } from '../../shared/payload.ts'
import { type WatchedPage, addLink, hydrated, openPage, settle } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'

/**
 * A client navigation whose data fails never traps the visitor (issue 49): a
 * 5xx loads the page whole, offline says so and loads the page once back
 * online, a request that hangs is given up after NAVIGATION_TIMEOUT_MS, a
 * second tap always does something, and the damage number stays in reach.
 */
const { system, browser } = await systemWithBrowser(t)
const PHONE = { viewport: { width: 390, height: 844 } }
const DAMAGE_TEL = 'tel:+31881234599'
const TARGET = '/kantoren'

const open = async (path = '/'): Promise<WatchedPage> => {
  const watched = await openPage(browser, PHONE)
  await watched.page.goto(`${system.url}${path}`)
  await hydrated(watched.page)
  await markDocument(watched.page)
  return watched
}
/** Marks the document: a full load replaces it, a client navigation keeps it. */
const markDocument = (page: Page) => page.evaluate(() => ((window as unknown as { kept: boolean }).kept = true))
const sameDocument = (page: Page) => page.evaluate(() => (window as unknown as { kept?: boolean }).kept === true)
const heading = (page: Page): Promise<string> => page.evaluate(() => document.querySelector('main h1')?.textContent ?? '')
const waitForHeading = (page: Page, text: string) => page.waitForFunction((expected) => document.querySelector('main h1')?.textContent === expected, text)
const addressPath = (page: Page): string => new URL(page.url()).pathname
const isPayloadOf = (path: string) => (url: URL) => url.pathname === `${path}${PAYLOAD_SUFFIX}`
const isDocumentOf = (path: string) => (request: Request) => request.isNavigationRequest() && new URL(request.url()).pathname === path

/** Whether a tap at the middle of a damage number link reaches it (it is in the window and nothing covers it). */
const damageCallReachable = (page: Page): Promise<boolean> =>
  page.evaluate((href) => {
    for (const link of document.querySelectorAll<HTMLAnchorElement>(`a[href="${href}"]`)) {
      const box = link.getBoundingClientRect()
      if (box.width === 0 || box.height === 0 || box.top < 0 || box.bottom > window.innerHeight) continue
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)
      if (hit && link.contains(hit)) return true
    }
    return false
  }, DAMAGE_TEL)

/** Whether the menu is open, and whether the app root has the open menu's class. */
const menuState = (page: Page): Promise<{ open: boolean; rootClass: boolean }> =>
  page.evaluate(() => ({
    open: document.querySelector<HTMLDetailsElement>('details.site-menu')?.open === true,
    rootClass: document.getElementById('app')?.classList.contains('app--menu-open') === true,
  }))

/** The title the target page has when it loads whole (its server-rendered heading). */
const targetHeading = await (async () => {
  const watched = await open(TARGET)
  const text = await heading(watched.page)
  await watched.page.context().close()
  return text
})()

/** The failed view's text, its try-again link and the address bar. */
async function failedView(page: Page): Promise<{ message: string; retry: string | null; address: string }> {
  await page.waitForSelector('.error-page')
  return {
    message: (await page.textContent('.error-page__message')) ?? '',
    retry: await page.getAttribute('.error-page a:text("Probeer het opnieuw")', 'href'),
    address: addressPath(page),
  }
}

t.test('the data answers 500: the page loads whole; held back by the guard, a message whose link and a second tap try again', async (t) => {
  const { page } = await open()
  const link = await addLink(page, TARGET, 'naar-kantoren')
  // What the gateway sends when the CMS fails: a payload of its error page, with its status.
  const body = JSON.stringify(errorPayload({ path: TARGET, fullPath: TARGET, statusCode: 500, message: 'upstream', preview: false, siteUrl: system.url }))
  let failing = true
  await page.route(isPayloadOf(TARGET), (route: Route) => (failing ? route.fulfill({ status: 500, contentType: 'application/json', body }) : route.continue()))

  const fullLoad = page.waitForRequest(isDocumentOf(TARGET))
  await page.click(link)
  await fullLoad
  await waitForHeading(page, targetHeading)
  t.notOk(await sameDocument(page), 'one tap: the page loaded whole')
  t.equal(addressPath(page), TARGET)

  // Loaded whole a moment ago: the guard holds back a second full load of the path, so the visitor gets the message.
  await hydrated(page)
  await page.goto(`${system.url}/`)
  await hydrated(page)
  await markDocument(page)
  await page.evaluate((path) => sessionStorage.setItem(`reload-guard:${path}`, String(Number.MAX_SAFE_INTEGER)), TARGET)
  await addLink(page, TARGET, 'naar-kantoren')
  await page.click(link)
  t.same(await failedView(page), { message: LOAD_FAILED_MESSAGE, retry: TARGET, address: TARGET }, 'the message, a link that tries again, the address')
  t.ok(await damageCallReachable(page), 'the damage number in reach')
  t.ok(await sameDocument(page), 'no full load')

  const again = page.waitForRequest((request) => isPayloadOf(TARGET)(new URL(request.url())))
  await page.click(link)
  await again
  t.pass('a second tap on the same link asks again')
  await page.waitForSelector('.error-page')

  failing = false
  await page.click('.error-page a:text("Probeer het opnieuw")')
  await waitForHeading(page, targetHeading)
  t.ok(await sameDocument(page), 'the try-again link shows the page on the client')
  t.equal(addressPath(page), TARGET)
  await page.context().close()
})

t.test('offline: the message says so, a tap tries again, and the page comes by itself once back online', async (t) => {
  const { page } = await open()
  const link = await addLink(page, TARGET, 'naar-kantoren')
  await page.context().setOffline(true)
  await page.click('summary.menu-button')
  await page.click(`#hoofdmenu a[href="${TARGET}"]`)
  t.same(await failedView(page), { message: OFFLINE_MESSAGE, retry: TARGET, address: TARGET }, '"Geen verbinding", a link that tries again, the address')
  t.match(OFFLINE_MESSAGE, /^Geen verbinding/)
  t.notOk(await page.evaluate(() => document.querySelector('details.site-menu')?.hasAttribute('open')), 'the menu closed')
  t.ok(await damageCallReachable(page), 'the damage number in reach')

  const failedAgain = page.waitForEvent('requestfailed', (request) => isPayloadOf(TARGET)(new URL(request.url())))
  await page.click(link)
  await failedAgain
  await page.waitForSelector('.error-page')
  t.pass('a second tap tries again')

  await page.context().setOffline(false)
  await waitForHeading(page, targetHeading)
  t.ok(await sameDocument(page), 'back online, the page came without a tap, on the client')
  t.equal(addressPath(page), TARGET)
  await page.context().close()
})

t.test('the request itself fails while online (the connection drops): the message, and a link that tries again', async (t) => {
  const { page } = await open()
  let failing = true
  await page.route(isPayloadOf(TARGET), (route: Route) => (failing ? route.abort('connectionreset') : route.continue()))
  await page.click(await addLink(page, TARGET, 'naar-kantoren'))
  t.same(await failedView(page), { message: LOAD_FAILED_MESSAGE, retry: TARGET, address: TARGET }, 'the message, a link that tries again, the address')
  t.ok(await damageCallReachable(page), 'the damage number in reach')
  failing = false
  await page.click('.error-page a:text("Probeer het opnieuw")')
  await waitForHeading(page, targetHeading)
  t.ok(await sameDocument(page), 'two taps: the page, on the client')
  await page.context().close()
})

t.test(`nothing comes: after ${NAVIGATION_TIMEOUT_MS} ms the page loads whole, the damage number in reach meanwhile`, async (t) => {
  const { page } = await open()
  // The payload is asked for and never answered.
  await page.route(isPayloadOf(TARGET), () => undefined)
  const documents: string[] = []
  page.on('request', (request) => {
    if (request.isNavigationRequest()) documents.push(request.url())
  })
  await page.clock.install()
  await page.clock.pauseAt(Date.now() + 5000)
  await page.click('summary.menu-button')
  const asked = page.waitForRequest((request) => isPayloadOf(TARGET)(new URL(request.url())))
  await page.click(`#hoofdmenu a[href="${TARGET}"]`)
  await asked
  t.equal(addressPath(page), TARGET, 'the address bar has the new address')
  t.same(await menuState(page), { open: false, rootClass: false }, 'the menu closed at the tap, not left open over the page while it waits')
  t.ok(await damageCallReachable(page), 'the damage number in reach while it waits')

  await page.clock.runFor(NAVIGATION_TIMEOUT_MS - 1)
  await settle(page)
  t.same(documents, [], `still waiting just before ${NAVIGATION_TIMEOUT_MS} ms`)
  const fullLoad = page.waitForRequest(isDocumentOf(TARGET))
  await page.clock.runFor(1)
  await fullLoad
  await waitForHeading(page, targetHeading)
  t.notOk(await sameDocument(page), `after ${NAVIGATION_TIMEOUT_MS} ms, with no second tap, the page loaded whole`)
  t.equal(addressPath(page), TARGET)
  await page.context().close()
})

t.test('a second tap on a link whose data is still coming loads the page whole at once', async (t) => {
  const { page } = await open()
  await page.route(isPayloadOf(TARGET), () => undefined)
  // A still clock: the full load comes from the tap, not from NAVIGATION_TIMEOUT_MS running out.
  await page.clock.install()
  await page.clock.pauseAt(Date.now() + 5000)
  const link = await addLink(page, TARGET, 'naar-kantoren')
  const asked = page.waitForRequest((request) => isPayloadOf(TARGET)(new URL(request.url())))
  await page.click(link)
  await asked
  const fullLoad = page.waitForRequest(isDocumentOf(TARGET))
  await page.click(link)
  await fullLoad
  await waitForHeading(page, targetHeading)
  t.notOk(await sameDocument(page), 'two taps: the page loaded whole')
  await page.context().close()
})

// The gateway answers a path that starts with `//` with its 400 page; the browser must ask it there, never the host the path names.
t.test('an address that starts with // stays on the site: a link to it, and Back to an entry of it', async (t) => {
  const { page, problems } = await open()
  const elsewhere: string[] = []
  await page.context().route(
    (url) => url.hostname === 'evil.example',
    (route) => {
      elsewhere.push(route.request().url())
      return route.fulfill({ status: 200, contentType: 'application/json', headers: { 'access-control-allow-origin': '*' }, body: '{}' })
    },
  )
  const followed = page.waitForRequest((request) => request.isNavigationRequest())
  await page.click(await addLink(page, '/.//evil.example/x', 'dotted'))
  t.equal(new URL((await followed).url()).origin, system.url, 'a link to /.//evil.example/x loads an address of the site')

  // An entry of the address, as the site's router pushes it for a <Link to="/.//evil.example/x">; then a page after it.
  await page.goto(`${system.url}/`)
  await hydrated(page)
  await page.evaluate(() => history.pushState({ ...history.state, key: 'slashes', idx: (history.state?.idx ?? 0) + 1 }, '', '/.//evil.example/x'))
  await page.click(await addLink(page, TARGET, 'naar-kantoren'))
  await waitForHeading(page, targetHeading)
  const back = page.waitForRequest((request) => request.isNavigationRequest())
  await page.goBack()
  const loaded = new URL((await back).url())
  t.equal(loaded.origin, system.url, 'Back to it: its data failing, the page loads whole on the site')
  t.equal(loaded.pathname, '//evil.example/x')
  // The page's Content-Security-Policy (connect-src 'self') would block a payload request to the other host: a console error.
  t.same([...elsewhere, ...problems.filter((problem) => problem.includes('http://evil.example'))], [], 'nothing asked of the host the path names')
  await page.context().close()
})
