import { createServer } from 'node:http'
import t from 'tap'
import { DEFAULT_SITE_HANDLE as P, TOKEN_STORAGE_KEY } from '../../shared/constants.ts'
import { type WatchedPage, addLink, hydrated, openPage } from '../helpers/browser.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { freePort } from '../helpers/ports.ts'

const store = shippedContent()
const cmsPort = await freePort()
const { system, browser } = await systemWithBrowser(t, { CMS_ORIGIN: `http://localhost:${cmsPort}` })

const waitForH1 = (watched: WatchedPage, title: string) =>
  watched.page.waitForFunction((expected) => document.querySelector('main h1')?.textContent === expected, title)
const markDocument = (watched: WatchedPage) =>
  watched.page.evaluate(() => {
    ;(window as unknown as { sameDocument: boolean }).sameDocument = true
  })
const sameDocument = (watched: WatchedPage) =>
  watched.page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true)

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
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route('**/over-ons/_payload.json', async (route) => {
    await held
    await route.continue()
  })
  await page.click('nav a[href="/over-ons"]')
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

t.test('a new build makes the next navigation a full page load', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  await page.route('**/builds/latest.json*', (route) => route.fulfill({ contentType: 'application/json', body: JSON.stringify({ id: 'a-newer-build', timestamp: Date.now() }) }))
  const checked = page.waitForRequest((request) => request.url().includes('/builds/latest.json?'))
  await page.goto(`${system.url}/`)
  await hydrated(page)
  await markDocument(watched)
  await checked
  await page.waitForTimeout(100)
  await page.click('nav a[href="/over-ons"]')
  await page.waitForURL('**/over-ons')
  await waitForH1(watched, titleOf(store, `${P}About`))
  t.notOk(await sameDocument(watched), 'a full page load')
  await page.context().close()
})

t.test('a chunk that fails to load reloads the page once, not in a loop', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  await page.goto(`${system.url}/`)
  await hydrated(page)
  const loaded = new Set(watched.requests.filter((url) => url.includes('/assets/')))
  await page.route('**/assets/chunk-*.js', (route) => (loaded.has(route.request().url()) ? route.continue() : route.abort()))
  let documents = 0
  page.on('request', (request) => {
    if (request.resourceType() === 'document') documents++
  })
  await page.click('nav a[href="/werken-bij"]')
  await page.waitForURL('**/werken-bij')
  await waitForH1(watched, titleOf(store, `${P}JobsOverview`))
  await page.waitForTimeout(1500)
  t.equal(documents, 1, 'exactly one reload of /werken-bij within 10 s')
  t.equal(await page.textContent('main h1'), titleOf(store, `${P}JobsOverview`), 'the server page stays readable')
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
  const token = 'preview-token-about-draft'
  await page.goto(`${system.url}/over-ons?x-craft-preview=1&token=${token}`)
  await hydrated(page)
  await waitForH1(watched, 'Over Havenborg (concept)')
  await page.waitForFunction((key) => localStorage.getItem(key) !== null, TOKEN_STORAGE_KEY)
  t.equal(await page.evaluate((key) => localStorage.getItem(key), TOKEN_STORAGE_KEY), token, 'stored as the login token')
  const request = page.waitForRequest((r) => r.url().endsWith('/kantoren/_payload.json'))
  await page.click('nav a[href="/kantoren"]')
  t.equal((await request).headers()['x-craft-token'], token, 'data requests carry the preview token')
  await page.context().close()
})

t.test('live preview inside the CMS iframe', async (t) => {
  const token = 'preview-token-about-draft'
  const cms = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end(`<!DOCTYPE html><title>CMS</title><iframe id="preview" width="1000" height="800" src="${system.url}/over-ons?x-craft-live-preview=abc&token=${token}"></iframe>`)
  })
  await new Promise<void>((resolve) => cms.listen(cmsPort, 'localhost', resolve))
  t.teardown(() => new Promise((resolve) => cms.close(resolve)))
  const watched = await openPage(browser)
  await watched.page.goto(`http://localhost:${cmsPort}/`)
  const frame = watched.page.frameLocator('#preview')
  await frame.locator('#root[data-hydrated="true"]').waitFor({ state: 'attached' })
  t.equal(await frame.locator('main h1').textContent(), 'Over Havenborg (concept)')
  await watched.page.context().close()
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
