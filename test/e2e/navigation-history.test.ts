import t from 'tap'
import type { Page, Request, Route } from 'playwright-core'
import { MAX_CONCURRENT_PRELOADS, PAYLOAD_SUFFIX } from '../../shared/constants.ts'
import { MAX_PAYLOADS, PAYLOAD_FRESH_MS } from '../../renderer/client/payload-loader.ts'
import { type WatchedPage, addLink, hydrated, openPage } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'

/**
 * The browser's side of navigation history and payloads: Back and Forward
 * return to where the visitor was, a click goes ahead of hover prefetches,
 * payloads are kept for a bounded number and time, and the loading bar
 * animates without React rendering the page.
 */

/** The gateway's s-maxage for payloads in this file: below the browser's own PAYLOAD_FRESH_MS, so it is what decides. */
const S_MAXAGE_S = 10
t.ok(S_MAXAGE_S * 1000 < PAYLOAD_FRESH_MS, 's-maxage below the browser-side limit')
const { system, browser } = await systemWithBrowser(t, { CACHE_TTL_MS: String(S_MAXAGE_S * 1000) })

const open = async (path: string, options = {}): Promise<WatchedPage> => {
  const watched = await openPage(browser, options)
  await watched.page.goto(`${system.url}${path}`)
  await hydrated(watched.page)
  return watched
}
const heading = (page: Page): Promise<string> => page.evaluate(() => document.querySelector('main h1')?.textContent ?? '')
const waitForHeading = (page: Page, text: string) => page.waitForFunction((expected) => document.querySelector('main h1')?.textContent === expected, text)
/** Waits until the page shows another heading than `text`. */
const leaves = (page: Page, text: string) => page.waitForFunction((from) => (document.querySelector('main h1')?.textContent ?? from) !== from, text)
const scrollY = (page: Page): Promise<number> => page.evaluate(() => Math.round(window.scrollY))
/** Scrolls at once (not smoothly) and waits until the page is there. */
const scrollTo = async (page: Page, y: number): Promise<void> => {
  await page.evaluate((top) => window.scrollTo({ top, left: 0, behavior: 'instant' }), y)
  await page.waitForFunction((top) => Math.round(window.scrollY) === top, y)
}
const payloadPath = (request: Request): string => {
  const url = new URL(request.url())
  return `${url.pathname.slice(0, -PAYLOAD_SUFFIX.length) || '/'}${url.search}`
}
/**
 * Counts React commits (through the devtools hook React DOM calls) and
 * animation frames asked for. Plain JavaScript in a string: tsx would wrap the
 * functions of an evaluated closure in a helper the page lacks.
 */
const COUNT_COMMITS_AND_FRAMES = String.raw`(() => {
  const counts = { commits: 0, frames: 0 }
  window.counts = counts
  window.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    supportsFiber: true,
    renderers: new Map(),
    inject: () => 1,
    onCommitFiberRoot: () => { counts.commits++ },
    onCommitFiberUnmount: () => {},
    onPostCommitFiberRoot: () => {},
    checkDCE: () => {},
  }
  const request = window.requestAnimationFrame.bind(window)
  window.requestAnimationFrame = (callback) => {
    counts.frames++
    return request(callback)
  }
})()`
const isPayload = (request: Request): boolean => new URL(request.url()).pathname.endsWith(PAYLOAD_SUFFIX)
const requestsFor = (watched: WatchedPage, path: string): number =>
  watched.requests.filter((url) => {
    const { pathname, search } = new URL(url)
    return pathname.endsWith(PAYLOAD_SUFFIX) && `${pathname.slice(0, -PAYLOAD_SUFFIX.length) || '/'}${search}` === path
  }).length

t.test('back and forward return to where the visitor left each page, also after a reload', async (t) => {
  const watched = await open('/actueel', { viewport: { width: 1000, height: 500 } })
  const { page } = watched
  const overview = await heading(page)
  await scrollTo(page, 214)
  // An article link on screen at 214 px, so the click itself does not scroll.
  const href = await page.evaluate(() => {
    const links = [...document.querySelectorAll<HTMLAnchorElement>('main a[href^="/actueel/"]')]
    return links.find((a) => a.getBoundingClientRect().top > 0 && a.getBoundingClientRect().bottom < window.innerHeight)?.getAttribute('href')
  })
  if (!href) throw new Error('no article link on screen')
  await page.click(`main a[href="${href}"]`)
  await page.waitForFunction((path) => location.pathname === path, href)
  await leaves(page, overview)
  const article = await heading(page)
  await page.waitForFunction(() => window.scrollY === 0)
  t.pass('a new page starts at the top')
  const articleMax = await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)
  const articleY = Math.min(150, articleMax)
  t.ok(articleY > 0, `the article scrolls (${articleMax} px)`)
  await scrollTo(page, articleY)

  await page.goBack()
  await waitForHeading(page, overview)
  t.equal(await scrollY(page), 214, 'Back: the overview where it was left')
  await page.goForward()
  await waitForHeading(page, article)
  t.equal(await scrollY(page), articleY, 'Forward: the article where it was left')

  await page.reload()
  await hydrated(page)
  await page.waitForFunction((y) => Math.round(window.scrollY) === y, articleY, { timeout: 5000 }).catch(() => undefined)
  t.equal(await scrollY(page), articleY, 'a reload keeps the position')
  await page.goBack()
  await waitForHeading(page, overview)
  await hydrated(page)
  await page.waitForFunction(() => Math.round(window.scrollY) === 214, undefined, { timeout: 5000 }).catch(() => undefined)
  t.equal(await scrollY(page), 214, 'reload, then Back: the overview where it was left')
  t.same(watched.problems, [], 'no console errors')
  await page.context().close()
})

t.test('a click goes ahead of the prefetches; the ones no longer needed are aborted', async (t) => {
  const watched = await open('/', { viewport: { width: 1400, height: 800 } })
  const { page } = watched
  const links = (await page.$$eval('header nav a', (anchors) => anchors.map((a) => a.getAttribute('href') ?? ''))).filter((href) => href !== '/')
  t.ok(links.length >= MAX_CONCURRENT_PRELOADS + 2, `enough links in the menu (${links.length})`)
  const running = links.slice(0, MAX_CONCURRENT_PRELOADS)
  const [clicked, unneeded] = links.slice(MAX_CONCURRENT_PRELOADS) as [string, string]

  const held = new Map<string, Route>()
  let allRunning!: () => void
  const fiveRunning = new Promise<void>((resolve) => (allRunning = resolve))
  // The click's own request, once it has reached the route (waitForRequest can resolve before the route handler runs).
  let clickRouted!: (route: Route) => void
  const clickedRoute = new Promise<Route>((resolve) => (clickRouted = resolve))
  await page.route(`**/*${PAYLOAD_SUFFIX}*`, (route) => {
    const path = payloadPath(route.request())
    held.set(path, route)
    if (path === clicked) clickRouted(route)
    if (running.every((path) => held.has(path))) allRunning()
  })
  const aborted = new Set<string>()
  let allAborted!: () => void
  const fiveAborted = new Promise<void>((resolve) => (allAborted = resolve))
  page.on('requestfailed', (request) => {
    if (isPayload(request)) aborted.add(payloadPath(request))
    if (running.every((path) => aborted.has(path))) allAborted()
  })
  const home = await heading(page)
  for (const href of [...running, clicked, unneeded]) await page.dispatchEvent(`header nav a[href="${href}"]`, 'mouseover')
  await fiveRunning
  t.same([...held.keys()].sort(), [...running].sort(), `five prefetches under way, ${clicked} and ${unneeded} queued`)

  await page.click(`header nav a[href="${clicked}"]`)
  const clickRoute = await clickedRoute
  t.pass('the click fetched its payload at once, past the five held prefetches')
  await clickRoute.continue()
  await leaves(page, home)
  t.equal(new URL(page.url()).pathname, clicked, `the page is shown (${await heading(page)}) while the prefetches are still held`)
  await Promise.race([fiveAborted, page.waitForTimeout(10_000)])
  t.same([...aborted].sort(), [...running].sort(), 'the five running prefetches were aborted')
  // One more prefetch: its request comes after any the freed slots would have started.
  const later = page.waitForRequest((request) => isPayload(request) && payloadPath(request) === '/')
  await page.dispatchEvent('header nav a[href="/"]', 'mouseover')
  await later
  t.notOk(held.has(unneeded), `the queued prefetch of ${unneeded} never started`)
  await page.context().close()
})

t.test(`at most ${MAX_PAYLOADS} payloads are kept: the least recently used is fetched again`, async (t) => {
  const watched = await open('/')
  const { page } = watched
  // A still clock: no payload grows old while this test runs.
  await page.clock.install()
  await page.clock.pauseAt(Date.now() + 5000)
  const paths = Array.from({ length: MAX_PAYLOADS + 1 }, (_, i) => `/over-ons?v=${i}`)
  for (const [i, path] of paths.entries()) await addLink(page, path, `kept-${i}`)
  const hover = async (i: number, timeout?: number): Promise<void> => {
    const answered = page.waitForResponse((response) => isPayload(response.request()) && payloadPath(response.request()) === paths[i], { timeout })
    await page.dispatchEvent(`#kept-${i}`, 'mouseover')
    await answered
  }
  for (const i of paths.keys()) await hover(i)
  t.same(
    paths.map((path) => requestsFor(watched, path)),
    paths.map(() => 1),
    `${paths.length} payloads prefetched once each`,
  )
  // The most recent is kept: hovering it again asks nothing; the first was dropped when the last came.
  await page.dispatchEvent(`#kept-${MAX_PAYLOADS}`, 'mouseover')
  await hover(0, 10_000)
  t.equal(requestsFor(watched, paths[0] as string), 2, 'the least recently used was dropped and is fetched again')
  t.equal(requestsFor(watched, paths[MAX_PAYLOADS] as string), 1, 'the most recent one was kept')
  await page.context().close()
})

t.test(`a payload older than the gateway's s-maxage (${S_MAXAGE_S} s) is fetched again`, async (t) => {
  const watched = await open('/')
  const { page } = watched
  await page.clock.install()
  await page.clock.pauseAt(Date.now() + 5000)
  const response = page.waitForResponse((r) => isPayload(r.request()) && payloadPath(r.request()) === '/kantoren')
  await page.dispatchEvent('header nav a[href="/kantoren"]', 'mouseover')
  t.match((await response).headers()['cache-control'], `s-maxage=${S_MAXAGE_S}`, 'the gateway names its s-maxage')

  await page.clock.runFor(S_MAXAGE_S * 1000 - 1000)
  // Hovered again just before its s-maxage, then another link: that request comes after any for the first.
  await page.dispatchEvent('header nav a[href="/kantoren"]', 'mouseover')
  const other = page.waitForRequest((r) => isPayload(r) && payloadPath(r) === '/contact')
  await page.dispatchEvent('header nav a[href="/contact"]', 'mouseover')
  await other
  t.equal(requestsFor(watched, '/kantoren'), 1, 'still fresh just before its s-maxage: not asked again')

  // A full s-maxage on: the page may have stored the first answer only after the clock's first run (the response
  // event reaches the test before the page's fetch has read the body, and a loaded machine can widen that gap), in
  // which case its freshness counts from then. Either way it is past its s-maxage now.
  await page.clock.runFor(S_MAXAGE_S * 1000)
  const again = page.waitForRequest((r) => isPayload(r) && payloadPath(r) === '/kantoren', { timeout: 10_000 })
  await page.click('header nav a[href="/kantoren"]')
  await again
  t.equal(requestsFor(watched, '/kantoren'), 2, 'past its s-maxage: the navigation fetched it again')
  await page.context().close()
})

t.test('the loading bar animates for many frames while React commits a handful of times', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  // React DOM reports each commit to the devtools hook, in production builds too, when one is installed before it loads.
  await page.addInitScript({ content: COUNT_COMMITS_AND_FRAMES })
  await page.goto(`${system.url}/`)
  await hydrated(page)
  type Counts = { commits: number; frames: number }
  const counts = (): Promise<Counts> => page.evaluate(() => ({ ...(window as unknown as { counts: Counts }).counts }))
  t.ok((await counts()).commits > 0, 'the hook sees React commit (hydration)')

  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route(`**/over-ons${PAYLOAD_SUFFIX}`, async (route) => {
    await held
    await route.continue()
  })
  const home = await heading(page)
  const before = await counts()
  await page.click('header nav a[href="/over-ons"]')
  const FRAMES = 60
  await page.waitForFunction(
    ([start, frames]) => (window as unknown as { counts: Counts }).counts.frames - (start as number) >= (frames as number),
    [before.frames, FRAMES] as const,
  )
  const bar = await page.evaluate(() => {
    const el = document.querySelector('.loading-bar') as HTMLElement
    return { visible: el.dataset.visible, width: parseFloat(el.style.width) }
  })
  t.ok(bar.visible === 'true' && bar.width > 0 && bar.width < 100, `the bar is shown and grows (${bar.width.toFixed(1)}%)`)
  const during = await counts()
  release()
  await leaves(page, home)
  const after = await counts()
  t.ok(during.frames - before.frames >= FRAMES, `${during.frames - before.frames} animation frames while the payload was held`)
  t.ok(during.commits - before.commits <= 3, `${during.commits - before.commits} React commits during them`)
  t.ok(after.commits - before.commits <= 5, `${after.commits - before.commits} React commits for the whole navigation`)
  await page.context().close()
})
