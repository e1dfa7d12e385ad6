import t from 'tap'
import type { Page } from 'playwright-core'
import { openPage } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'

const { system, browser } = await systemWithBrowser(t)

/** Every Content-Security-Policy violation of the page, from before its first byte. */
async function watchViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = []
    ;(window as unknown as { violations: string[] }).violations = seen
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.effectiveDirective} ${event.blockedURI}`))
  })
}

/** What the browser made of the page's `<style>` elements: whether each became a stylesheet, and how many rules it has. */
const inlineSheets = (page: Page) =>
  page.evaluate(() => [...document.querySelectorAll('head > style')].map((style) => (style as HTMLStyleElement).sheet?.cssRules.length ?? null))
const violations = (page: Page) => page.evaluate(() => (window as unknown as { violations: string[] }).violations)
/** The violation event is queued as a task: once the page has loaded it has been dispatched. */
const loaded = (page: Page) => page.waitForFunction(() => document.readyState === 'complete')

t.test('the inlined stylesheet applies on a fresh page and on a cached one, under their policies', async (t) => {
  const { page } = await openPage(browser)
  await watchViolations(page)
  for (const expected of ['MISS', 'HIT']) {
    const response = await page.goto(`${system.url}/kantoren`)
    t.equal(response?.headers()['x-cache'], expected)
    await loaded(page)
    const sheets = await inlineSheets(page)
    t.equal(sheets.length, 1, `${expected}: one style element in the head`)
    t.ok((sheets[0] ?? 0) > 10, `${expected}: it became the page's stylesheet, with its rules`)
    t.same(await violations(page), [], `${expected}: the policy refused nothing`)
  }
  await page.context().close()
})

t.test('a style the renderer did not write is refused: changed in the cached page, or added to a fresh one', async (t) => {
  await (await fetch(`${system.url}/over-ons`)).arrayBuffer()
  const { page } = await openPage(browser)
  await watchViolations(page)
  // The cached page as the gateway sends it, its stylesheet changed on the way: its policy allows only the hashed original.
  await page.route(`${system.url}/over-ons`, async (route) => {
    const response = await route.fetch()
    t.equal(response.headers()['x-cache'], 'HIT', 'the page comes from the cache, with hashes in its policy')
    const html = (await response.text()).replace(/<style>/, '<style>main{display:none}')
    await route.fulfill({ response, body: html })
  })
  await page.goto(`${system.url}/over-ons`)
  await loaded(page)
  t.same(await inlineSheets(page), [null], 'the changed stylesheet is not applied')
  t.same(await violations(page), ['style-src-elem inline'], 'and reported as refused by style-src-elem')
  await page.unroute(`${system.url}/over-ons`)

  // A fresh page with a style element added that has no nonce.
  await page.route(`${system.url}/contact`, async (route) => {
    const response = await route.fetch()
    t.equal(response.headers()['x-cache'], 'MISS', 'a fresh render, with a nonce in its policy')
    const html = (await response.text()).replace('</head>', '<style>main{display:none}</style></head>')
    await route.fulfill({ response, body: html })
  })
  await page.goto(`${system.url}/contact`)
  await loaded(page)
  const sheets = await inlineSheets(page)
  t.equal(sheets.length, 2)
  t.ok((sheets[0] ?? 0) > 10, 'the renderer’s stylesheet applies')
  t.equal(sheets[1], null, 'the added one does not')
  t.ok(await page.isVisible('main'), 'so the page shows')
  await page.context().close()
})
