import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { type WatchedPage, hydrated, openPage, settle } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { shippedContent, slugsOf, titleOf } from '../helpers/content.ts'

// The site on one origin, the embedded CMS's images on another (the same gateway under another host
// name), as a real Craft's images are on its own host or a CDN: the pages' CSP must let them in.
const store = shippedContent()
const siteOn = (port: number) => `http://localhost:${port}`
const assetsOn = (port: number) => `http://127.0.0.1:${port}/cms-assets`
const { system, browser } = await systemWithBrowser(t, (port) => ({ SITE_URL: siteOn(port), EMBEDDED_ASSET_URL: assetsOn(port) }))
const port = Number(new URL(system.url).port)
const SITE = siteOn(port)
const ASSETS = assetsOn(port)
const [slug] = slugsOf(store, 'topical')
const ARTICLE = `/topical/${slug}`

interface Violations {
  cspViolations: string[]
}

/** A page that records every CSP violation from its first script on. */
async function watchedPage(): Promise<WatchedPage> {
  const watched = await openPage(browser)
  await watched.page.addInitScript(() => {
    const w = window as unknown as Violations
    w.cspViolations = []
    document.addEventListener('securitypolicyviolation', (event) => w.cspViolations.push(`${event.effectiveDirective} ${event.blockedURI}`), true)
  })
  return watched
}


/** Brings every image of the content into view (lazy ones start loading) and waits until each has loaded or failed. */
async function imagesSettled(page: Page): Promise<{ complete: boolean; naturalWidth: number; currentSrc: string }[]> {
  const images = page.locator('main img')
  const count = await images.count()
  for (let i = 0; i < count; i++) {
    const image = images.nth(i)
    await image.scrollIntoViewIfNeeded()
    await image.evaluate(
      (img: HTMLImageElement) =>
        img.complete ||
        new Promise((resolve) => {
          img.addEventListener('load', resolve, { once: true })
          img.addEventListener('error', resolve, { once: true })
        }),
    )
  }
  await settle(page)
  return images.evaluateAll((imgs: HTMLImageElement[]) => imgs.map((img) => ({ complete: img.complete, naturalWidth: img.naturalWidth, currentSrc: img.currentSrc })))
}

async function allFromAssetOrigin(t: Test, watched: WatchedPage, label: string, least: number): Promise<void> {
  const { page } = watched
  t.equal(new URL(page.url()).origin, SITE, `${label}: the page is on the site's origin`)
  const images = await imagesSettled(page)
  t.ok(images.length >= least, `${label}: ${images.length} images in the content`)
  for (const [i, image] of images.entries()) {
    t.ok(image.complete && image.naturalWidth > 0, `${label}: image ${i + 1} loaded (${image.naturalWidth} px wide)`)
    t.ok(image.currentSrc.startsWith(`${ASSETS}/`), `${label}: image ${i + 1} from the asset origin (${image.currentSrc})`)
    t.ok(watched.requests.includes(image.currentSrc), `${label}: image ${i + 1} fetched by the browser`)
  }
  t.same(await page.evaluate(() => (window as unknown as Violations).cspViolations), [], `${label}: no CSP violation`)
  t.same(watched.problems, [], `${label}: no console errors or warnings`)
}

t.test('an article page: its image comes from the asset origin, rendered and from the page cache', async (t) => {
  for (const expected of ['MISS', 'HIT']) {
    const watched = await watchedPage()
    const response = await watched.page.goto(`${SITE}${ARTICLE}`)
    t.equal(response?.headers()['x-cache'], expected, `the page ${expected === 'MISS' ? 'rendered (policy with a nonce)' : 'from the page cache (policy with hashes)'}`)
    await hydrated(watched.page)
    await allFromAssetOrigin(t, watched, `${ARTICLE} (${expected})`, 1)
    await watched.page.context().close()
  }
})

t.test('the news overview: every card image comes from the asset origin, lazy ones too; so does the article reached on the client', async (t) => {
  const watched = await watchedPage()
  const { page } = watched
  await page.goto(`${SITE}/actueel`)
  await hydrated(page)
  await allFromAssetOrigin(t, watched, '/actueel', 3)

  await page.evaluate(() => {
    ;(window as unknown as { sameDocument: boolean }).sameDocument = true
  })
  await page.click(`main a[href$="/${slug}"]`)
  await page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, titleOf(store, 'topical', slug))
  t.ok(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true), 'a client navigation')
  await allFromAssetOrigin(t, watched, `${ARTICLE} on the client`, 1)
  await page.context().close()
})
