import t from 'tap'
import type { Page } from 'playwright-core'
import {
  GENERIC_ERROR_HEADING,
  LATEST_BUILD_PATH,
  MANIFEST_FETCH_DELAY_MS,
  DEFAULT_SITE_HANDLE as P,
  RELOAD_GUARD_MS,
  TOKEN_COOKIE_NAME,
  TOKEN_STORAGE_KEY,
} from '../../shared/constants.ts'
import { CONFIG_SCRIPT_ID, type ClientConfig } from '../../renderer/app/document-ids.ts'
import { type WatchedPage, hydrated, openPage, settle } from '../helpers/browser.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { framingCms } from '../helpers/framing-cms.ts'

const store = shippedContent()
const cms = await framingCms(t)
const { system, browser } = await systemWithBrowser(t, { CMS_ORIGIN: cms.origin })

const waitForH1 = (watched: WatchedPage, title: string) =>
  watched.page.waitForFunction((expected) => document.querySelector('main h1')?.textContent === expected, title)
const markDocument = (watched: WatchedPage) =>
  watched.page.evaluate(() => {
    ;(window as unknown as { sameDocument: boolean }).sameDocument = true
  })
const sameDocument = (watched: WatchedPage) =>
  watched.page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true)

/** A fixed moment for the fake clock: timers run only when a test says so. */
const START = new Date('2030-01-07T09:00:00Z').getTime()
const pauseClock = async (page: Page): Promise<void> => {
  // Installed a minute early: the installed clock ticks until paused, and pausing may only go forward.
  await page.clock.install({ time: START - 60_000 })
  await page.clock.pauseAt(START)
  await page.addInitScript((path) => {
    const json = Response.prototype.json
    Response.prototype.json = function (this: Response) {
      const read = json.call(this)
      // Counted after the app's own continuation of this read has run.
      if (this.url.includes(path)) void read.then(() => queueMicrotask(() => ((window as unknown as { buildChecksRead: number }).buildChecksRead = ((window as unknown as { buildChecksRead?: number }).buildChecksRead ?? 0) + 1)))
      return read
    }
  }, LATEST_BUILD_PATH)
}
const latestBuild = (id: string) => (route: import('playwright-core').Route) =>
  route.fulfill({ contentType: 'application/json', body: JSON.stringify({ id, timestamp: START }) })
/** Runs the clock up to the document's first build check and waits until the page has read the answer. */
const firstBuildCheck = async (page: Page): Promise<void> => {
  await page.clock.runFor(MANIFEST_FETCH_DELAY_MS)
  await page.waitForFunction(() => ((window as unknown as { buildChecksRead?: number }).buildChecksRead ?? 0) >= 1)
}
const countDocuments = (page: Page): { count: number } => {
  const documents = { count: 0 }
  page.on('request', (request) => {
    if (request.resourceType() === 'document' && request.frame() === page.mainFrame()) documents.count++
  })
  return documents
}

t.test('loading bar: throttle, progress, finish, hide, reset; red on error', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  await page.clock.install()
  await page.goto(`${system.url}/`)
  await hydrated(page)
  await page.clock.pauseAt(Date.now() + 5000)
  const bar = () =>
    page.evaluate(() => {
      const el = document.querySelector('.loading-bar') as HTMLElement
      return { visible: el.dataset.visible, width: parseFloat(el.style.width), image: el.style.backgroundImage, colour: el.style.backgroundColor }
    })
  t.same(await bar(), { visible: 'false', width: 0, image: '', colour: 'rgb(103, 152, 223)' }, 'hidden, #6798df')
  t.equal(await page.$eval('.loading-bar', (el) => getComputedStyle(el).height), '3px', '3 px high')
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  let asked!: () => void
  const requested = new Promise<void>((resolve) => (asked = resolve))
  await page.route('**/over-ons/_payload.json', async (route) => {
    asked()
    await held
    await route.continue()
  })
  await page.click('nav a[href="/over-ons"]')
  // The bar's throttle starts with the navigation, which asks for the payload next: the clock runs only once it has.
  await requested
  await page.clock.runFor(190)
  t.equal((await bar()).visible, 'false', 'not shown before 200 ms')
  await page.clock.runFor(20)
  t.equal((await bar()).visible, 'true', 'shown after the throttle')
  await page.clock.runFor(1000)
  const midway = (await bar()).width
  t.ok(midway > 20 && midway < 80, `progress grows (${midway.toFixed(1)}% after 1 s)`)
  await page.clock.runFor(5000)
  const late = (await bar()).width
  t.ok(late > midway && late < 100, `never reaches 100 by itself (${late.toFixed(1)}%)`)
  release()
  await waitForH1(watched, titleOf(store, `${P}About`))
  t.same(await bar().then((b) => [b.visible, b.width]), ['true', 100], 'jumps to 100 on finish')
  await page.clock.runFor(490)
  t.equal((await bar()).visible, 'true', 'still shown just before 500 ms')
  await page.clock.runFor(20)
  t.same(await bar().then((b) => [b.visible, b.width]), ['false', 100], 'hidden after 500 ms')
  await page.clock.runFor(410)
  t.equal((await bar()).width, 0, 'reset after another 400 ms')

  await page.route('**/kantoren/_payload.json', (route) => route.abort())
  await page.click('nav a[href="/kantoren"]')
  await page.waitForFunction(() => (document.querySelector('.loading-bar') as HTMLElement).style.backgroundImage !== '')
  t.match((await bar()).image, /gradient/, 'a red gradient on error')
  await page.context().close()
})

t.test('builds/latest.json: first checked 1 s after load, then once per poll interval', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  await page.addInitScript((path) => {
    const counter = window as unknown as { latestChecks: number }
    counter.latestChecks = 0
    const original = window.fetch.bind(window)
    window.fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).includes(path)) counter.latestChecks++
      return original(input, init)
    }
  }, LATEST_BUILD_PATH)
  await pauseClock(page)
  await page.goto(`${system.url}/`)
  await hydrated(page)
  const checks = () => page.evaluate(() => (window as unknown as { latestChecks: number }).latestChecks)
  const { buildPollIntervalMs } = await page.evaluate((id) => JSON.parse(document.getElementById(id)?.textContent ?? '{}') as ClientConfig, CONFIG_SCRIPT_ID)
  await page.clock.runFor(999)
  t.equal(await checks(), 0, 'not yet after 999 ms')
  await page.clock.runFor(1)
  t.equal(await checks(), 1, 'checked after 1000 ms')
  await page.clock.runFor(buildPollIntervalMs - 1)
  t.equal(await checks(), 1, `nothing more until the interval (${buildPollIntervalMs} ms) is over`)
  await page.clock.runFor(1)
  t.equal(await checks(), 2, 'the second check one interval later')
  await page.clock.runFor(buildPollIntervalMs)
  t.equal(await checks(), 3, 'and so on')
  await page.context().close()
})

t.test('builds/latest.json answering 500 is only logged: no reload, navigation stays on the client', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  await page.route(`**${LATEST_BUILD_PATH}*`, (route) => route.fulfill({ status: 500, body: 'kapot' }))
  await pauseClock(page)
  const documents = countDocuments(page)
  await page.goto(`${system.url}/`)
  await hydrated(page)
  await markDocument(watched)
  const warned = page.waitForEvent('console', (message) => message.type() === 'warning' && message.text().includes('[build] could not check'))
  await page.clock.runFor(MANIFEST_FETCH_DELAY_MS)
  await warned
  await page.click('nav a[href="/over-ons"]')
  await waitForH1(watched, titleOf(store, `${P}About`))
  t.ok(await sameDocument(watched), 'a client navigation')
  t.equal(documents.count, 1, 'the page was never reloaded')
  t.same(
    watched.problems.filter((p) => !p.includes('[build]') && !p.includes('status of 500')),
    [],
    'a console warning and nothing else',
  )
  await page.context().close()
})

t.test('a new build: the next navigation is a full load, at most once per path per 10 s', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  await page.route(`**${LATEST_BUILD_PATH}*`, latestBuild('a-newer-build'))
  await pauseClock(page)
  const documents = countDocuments(page)
  await page.goto(`${system.url}/`)
  await hydrated(page)
  await markDocument(watched)
  await firstBuildCheck(page)
  const about = titleOf(store, `${P}About`)
  const home = titleOf(store, `${P}Home`)

  await page.click('nav a[href="/over-ons"]')
  await page.waitForURL('**/over-ons')
  await hydrated(page)
  await waitForH1(watched, about)
  t.notOk(await sameDocument(watched), '/over-ons: a full page load')
  await markDocument(watched)
  await firstBuildCheck(page)
  await page.click('a.site-logo')
  await page.waitForURL(`${system.url}/`)
  await hydrated(page)
  await waitForH1(watched, home)
  t.notOk(await sameDocument(watched), '/: a full page load too (its own path)')
  t.equal(documents.count, 3)

  await markDocument(watched)
  await firstBuildCheck(page)
  await page.click('nav a[href="/over-ons"]')
  await waitForH1(watched, about)
  t.ok(await sameDocument(watched), '/over-ons again within 10 s: a client navigation')
  await page.click('a.site-logo')
  await waitForH1(watched, home)
  t.ok(await sameDocument(watched), '/ again within 10 s: a client navigation')
  t.equal(documents.count, 3, 'no other document loaded')

  await page.clock.runFor(RELOAD_GUARD_MS)
  await page.click('nav a[href="/over-ons"]')
  await page.waitForURL('**/over-ons')
  await hydrated(page)
  await waitForH1(watched, about)
  t.notOk(await sameDocument(watched), '/over-ons after 10 s: a full page load again')
  t.equal(documents.count, 4)
  await page.context().close()
})

t.test('a new build: back and forward are full loads too', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  await page.route(`**${LATEST_BUILD_PATH}*`, latestBuild('a-newer-build'))
  await pauseClock(page)
  await page.goto(`${system.url}/`)
  await hydrated(page)
  await markDocument(watched)
  await page.click('nav a[href="/over-ons"]')
  await waitForH1(watched, titleOf(store, `${P}About`))
  t.ok(await sameDocument(watched), 'before the check a client navigation')
  await firstBuildCheck(page)
  const reloaded = page.waitForRequest((request) => request.resourceType() === 'document', { timeout: 5000 })
  await page.goBack()
  t.equal((await reloaded).url(), `${system.url}/`, 'back loads / from the server')
  await hydrated(page)
  await waitForH1(watched, titleOf(store, `${P}Home`))
  t.notOk(await sameDocument(watched), 'a new document')
  await page.context().close()
})

t.test('a chunk that fails to load reloads the page at most once per path per 10 s', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  await pauseClock(page)
  await page.goto(`${system.url}/`)
  await hydrated(page)
  const loaded = new Set(watched.requests.filter((url) => url.includes('/assets/')))
  await page.route('**/assets/chunk-*.js', (route) => (loaded.has(route.request().url()) ? route.continue() : route.abort()))
  const documents = countDocuments(page)
  let chunkErrors = 0
  const waiters: [number, () => void][] = []
  page.on('console', (message) => {
    if (!message.text().includes('could not load the code of screen jobs')) return
    chunkErrors++
    for (const [count, resolve] of waiters) if (chunkErrors >= count) resolve()
  })
  /** The page has failed to load the chunk `count` times in all and has done what it does about it. */
  const chunkFailures = async (count: number): Promise<void> => {
    await new Promise<void>((resolve) => (chunkErrors >= count ? resolve() : waiters.push([count, resolve])))
    await settle(page)
  }
  const jobs = titleOf(store, `${P}JobsOverview`)

  await page.click('nav a[href="/werken-bij"]')
  await page.waitForURL('**/werken-bij')
  await waitForH1(watched, jobs)
  await chunkFailures(2)
  t.equal(documents.count, 1, 'one reload of /werken-bij; its own failure does not reload again')
  t.equal(await page.textContent('main h1'), jobs, 'the server page stays readable')

  await page.clock.runFor(RELOAD_GUARD_MS - 1000)
  await page.reload()
  await chunkFailures(3)
  t.equal(documents.count, 2, 'after 9 s: only the reload the test asked for')

  await page.clock.runFor(1000)
  await page.reload()
  await chunkFailures(5)
  t.equal(documents.count, 4, 'after 10 s: the page reloads itself once more')
  await page.context().close()
})

t.test('preview in the browser: token from the address, stored after load, sent with data requests', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  await page.addInitScript(([key]) => {
    if (!sessionStorage.getItem('seeded')) {
      localStorage.setItem(key as string, 'old-default-token')
      sessionStorage.setItem('seeded', '1')
    }
  }, [TOKEN_STORAGE_KEY])
  // An image that holds the load event until the test lets it through.
  await page.addInitScript(() => {
    document.addEventListener('DOMContentLoaded', () => {
      const image = document.createElement('img')
      image.src = '/hold-the-load-event.png'
      image.alt = ''
      document.body.append(image)
    })
  })
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route('**/hold-the-load-event.png', async (route) => {
    await held
    await route.fulfill({ status: 204 })
  })
  const token = 'preview-token-about-draft'
  const response = await page.goto(`${system.url}/over-ons?x-craft-preview=1&token=${token}`, { waitUntil: 'domcontentloaded' })
  await hydrated(page)
  await waitForH1(watched, 'Over Havenborg (concept)')
  t.not(await page.evaluate(() => document.readyState), 'complete', 'the load event has not fired yet')
  t.equal(await page.evaluate((key) => localStorage.getItem(key), TOKEN_STORAGE_KEY), null, 'the stored default token is removed at once')
  release()
  await page.waitForFunction((key) => localStorage.getItem(key) !== null, TOKEN_STORAGE_KEY)
  t.equal(await page.evaluate((key) => localStorage.getItem(key), TOKEN_STORAGE_KEY), token, 'stored as the login token after load')
  // Chromium counts http://127.0.0.1 as a secure context, so it keeps the Secure cookie this plain-http test gets.
  const cookie = (await page.context().cookies(system.url)).find((c) => c.name === TOKEN_COOKIE_NAME)
  t.equal(cookie?.value, token, 'the craft_token cookie is in the browser')
  t.ok(cookie?.secure, 'and it is Secure')
  t.match((await response?.allHeaders())?.['set-cookie'] ?? '', new RegExp(`${TOKEN_COOKIE_NAME}=${token};.*Secure`), 'as the preview page set it')
  const request = page.waitForRequest((r) => r.url().endsWith('/kantoren/_payload.json'))
  await page.click('nav a[href="/kantoren"]')
  t.equal((await request).headers()['x-craft-token'], token, 'data requests carry the preview token')
  await page.context().close()
})

t.test('live preview inside the CMS iframe', async (t) => {
  const token = 'preview-token-about-draft'
  cms.show(`<!DOCTYPE html><title>CMS</title><iframe id="preview" width="1000" height="800" src="${system.url}/over-ons?x-craft-live-preview=abc&token=${token}"></iframe>`)
  const watched = await openPage(browser)
  await watched.page.goto(`${cms.origin}/`)
  const frame = watched.page.frameLocator('#preview')
  await frame.locator('#root[data-hydrated="true"]').waitFor({ state: 'attached' })
  t.equal(await frame.locator('main h1').textContent(), 'Over Havenborg (concept)')
  await watched.page.context().close()
})

t.test('a page that cannot render: people get the error page, crawlers keep the page and the error is logged', async (t) => {
  for (const [userAgent, showsErrorPage] of [
    ['Mozilla/5.0 (compatible; Googlebot/2.1)', false],
    ['Mozilla/5.0 (X11; Linux x86_64) Chrome/120', true],
  ] as const) {
    const watched = await openPage(browser, { userAgent })
    const { page } = watched
    await page.goto(`${system.url}/`)
    await hydrated(page)
    await markDocument(watched)
    // A payload the page screen cannot render: an object where the title's text belongs.
    await page.route('**/over-ons/_payload.json', async (route) => {
      const response = await route.fetch()
      const payload = (await response.json()) as { data: { page: { entry: { title: unknown } } } }
      payload.data.page.entry.title = { nl: 'Over ons' }
      await route.fulfill({ response, json: payload })
    })
    const logged = page.waitForEvent('console', (message) => message.type() === 'error' && message.text().includes('[render]'))
    await page.click('nav a[href="/over-ons"]')
    await page.waitForURL('**/over-ons')
    await logged
    await settle(page)
    if (showsErrorPage) {
      await page.waitForSelector('main .error-page')
      t.equal(await page.textContent('main h1'), GENERIC_ERROR_HEADING, 'a person sees the error page')
      t.equal(await page.getAttribute('.error-page', 'data-status'), '500')
      t.match(await page.textContent('.error-page__message'), /kon niet worden weergegeven/, 'with a message for people, not the exception')
      t.ok(await page.isVisible('header.site-header'), 'inside the layout')
    } else {
      t.equal(await page.textContent('main h1'), titleOf(store, `${P}Home`), 'a crawler keeps the page it had')
      t.notOk(await page.isVisible('.error-page'), 'no error page')
    }
    t.ok(await sameDocument(watched), 'no reload')
    t.ok(watched.problems.some((p) => p.includes('[render] the page could not be shown')), 'the error is logged')
    await page.context().close()
  }
})

t.test('for crawlers a client-side error is only logged, for people it shows the error page', async (t) => {
  for (const [userAgent, showsErrorPage] of [
    ['Mozilla/5.0 (compatible; Googlebot/2.1)', false],
    ['Mozilla/5.0 (X11; Linux x86_64) Chrome/120', true],
  ] as const) {
    const watched = await openPage(browser, { userAgent })
    const { page } = watched
    await page.goto(`${system.url}/`)
    await hydrated(page)
    await page.route('**/kantoren/_payload.json', (route) => route.abort())
    await page.click('nav a[href="/kantoren"]')
    await page.waitForFunction(() => (document.querySelector('.loading-bar') as HTMLElement).style.backgroundImage !== '')
    await page.waitForTimeout(100)
    const heading = await page.textContent('main h1')
    if (showsErrorPage) t.equal(heading, 'Er is iets misgegaan.', 'a person sees the error page')
    else t.equal(heading, titleOf(store, `${P}Home`), 'a crawler keeps the page it had')
    t.ok(watched.problems.some((p) => p.includes('[navigation] failed')), 'the error is logged')
    await page.context().close()
  }
})
