import { readFileSync } from 'node:fs'
import t from 'tap'
import { DEFAULT_SITE_HANDLE as P, invalidRouteMessage } from '../../shared/constants.ts'
import type { PagePayload } from '../../shared/payload.ts'
import { modulePreloadsOf } from '../../renderer/server/module-preloads.ts'
import { type WatchedPage, addLink, hydrated, openPage } from '../helpers/browser.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'

const store = shippedContent()
const { system, browser } = await systemWithBrowser(t)

const open = async (path: string, options = {}): Promise<WatchedPage> => {
  const watched = await openPage(browser, options)
  await watched.page.goto(`${system.url}${path}`)
  await hydrated(watched.page)
  await watched.page.evaluate(() => {
    ;(window as unknown as { sameDocument: boolean }).sameDocument = true
  })
  return watched
}
const sameDocument = (watched: WatchedPage) =>
  watched.page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true)

t.test('hydrates every kind of page without a warning', async (t) => {
  for (const path of ['/', '/over-ons', '/werken-bij', '/actueel', '/kantoren', '/onze-dienstverlening/schade-melden', '/contact', '/bestaat-niet']) {
    const watched = await open(path)
    t.same(watched.problems.filter((p) => !p.includes('404')), [], `${path}: no console errors or warnings`)
    await watched.page.context().close()
  }
})

t.test('the stored 404 page hydrates as the page of the address it is on', async (t) => {
  await open('/bestaat-niet').then((watched) => watched.page.context().close())
  const watched = await open('/ook-dit-bestaat-niet?utm_source=x')
  const { page } = watched
  t.same(watched.problems.filter((p) => !p.includes('404')), [], 'no console errors or warnings')
  t.equal(await page.getAttribute('.error-page', 'data-status'), '404')
  t.equal(await page.textContent('main h1'), titleOf(store, 'notFound'))
  const payload = await page.evaluate(() => JSON.parse(document.getElementById('__PAYLOAD__')?.textContent ?? 'null') as { path: string })
  t.equal(payload.path, '/ook-dit-bestaat-niet', 'its own path in the page it got')
  // The app works from there: a click navigates on the client.
  await page.click('nav a[href="/over-ons"]')
  await page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, titleOf(store, `${P}About`))
  t.ok(await sameDocument(watched), 'no full page load')
  await page.context().close()
})

t.test("after hydration the page's links to its other pages are react-router's <Link>s; other links stay plain", async (t) => {
  const watched = await open('/')
  // React keeps an element's props on it: a <Link> gives its <a> react-router's click handler, a plain <a> has none.
  const links = await watched.page.evaluate(() =>
    [...document.querySelectorAll('a')].map((a) => {
      const propsKey = Object.keys(a).find((key) => key.startsWith('__reactProps$')) as keyof HTMLAnchorElement | undefined
      const props = (propsKey ? a[propsKey] : undefined) as { onClick?: unknown } | undefined
      return { href: a.getAttribute('href') ?? '', routed: typeof props?.onClick === 'function', place: a.closest('header, footer, .card, .breadcrumbs')?.className ?? '' }
    }),
  )
  const routed = (href: string) => links.filter((link) => link.href === href).every((link) => link.routed)
  t.ok(routed('/') && routed('/over-ons'), 'the logo and the menu')
  t.ok(links.some((link) => link.routed && link.place.includes('card')), 'the cards')
  t.ok(links.some((link) => link.routed && link.place.includes('site-footer')), "the footer's pages")
  t.same(links.filter((link) => link.routed && !link.href.startsWith('/')), [], 'no link elsewhere is routed')
  t.ok(links.some((link) => link.href === '#inhoud' && !link.routed), 'the skip link is the browser\'s')
  t.ok(links.some((link) => link.href.startsWith('tel:') && !link.routed), 'so is a telephone number')
  t.same(watched.problems, [])
  await watched.page.context().close()
})

t.test('client navigation loads the payload, keeps the document, moves focus and title', async (t) => {
  const watched = await open('/')
  const { page } = watched
  const aboutTitle = titleOf(store, `${P}About`)
  await page.click('nav a[href="/over-ons"]')
  await page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, aboutTitle)
  t.equal(new URL(page.url()).pathname, '/over-ons')
  t.ok(await sameDocument(watched), 'no full page load')
  t.ok(watched.requests.some((url) => url.endsWith('/over-ons/_payload.json')), 'the payload came from _payload.json')
  t.match(await page.title(), aboutTitle, 'the title changed')
  t.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1', 'focus moved to the heading')
  await page.goBack()
  await page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, titleOf(store, `${P}Home`))
  t.ok(await sameDocument(watched), 'back is a client navigation too')
  t.same(watched.problems, [])
  await page.context().close()
})

t.test('the page preloads the entry with itself, and its screen chunk and the hydration chunks only after its first paint', async (t) => {
  const built = JSON.parse(readFileSync(new URL('../../dist/build.json', import.meta.url), 'utf8')) as { assets: { client: string } }
  const metafile = JSON.parse(readFileSync(new URL('../../dist/client-meta.json', import.meta.url), 'utf8'))
  const expected = modulePreloadsOf(metafile, built.assets.client)
  const chunkOf = (screen: string): string => {
    const output = Object.entries(metafile.outputs as Record<string, { entryPoint?: string }>).find(([, o]) => o.entryPoint?.endsWith(`renderer/app/screens/${screen}-screen.tsx`))
    return `/assets/${output?.[0].split('/').pop()}`
  }
  t.ok(expected.hydration.length > 0, `the entry imports the hydration after the paint (${expected.hydration.length} chunks)`)
  for (const [path, screen, other] of [
    ['/', 'home', 'page'],
    ['/over-ons', 'page', 'home'],
  ] as const) {
    const watched = await openPage(browser)
    const response = await watched.page.goto(`${system.url}${path}`)
    const html = (await response?.text()) ?? ''
    const inHead = [...html.matchAll(/<link [^>]*rel="modulepreload"[^>]*>/g)].map((tag) => /href="([^"]+)"/.exec(tag[0])?.[1])
    const config = JSON.parse(/<script type="application\/json" id="__CONFIG__">([^<]*)<\/script>/.exec(html)?.[1] ?? '{}') as { modulePreloads?: string[] }
    const afterPaint = config.modulePreloads ?? []
    t.ok(inHead.includes(built.assets.client), `${path}: the entry is preloaded with the page`)
    t.same(expected.entry.filter((chunk) => !inHead.includes(chunk)), [], `${path}: and so is every static chunk of the entry`)
    t.same(inHead.filter((href) => afterPaint.includes(href ?? '')), [], `${path}: nothing for after the paint is in the head`)
    t.ok(afterPaint.includes(chunkOf(screen)), `${path}: the ${screen} screen's chunk is listed for after the paint`)
    t.notOk(afterPaint.includes(chunkOf(other)), `${path}: not the ${other} screen's`)
    t.same(expected.hydration.filter((chunk) => !afterPaint.includes(chunk)), [], `${path}: every hydration chunk is listed for after the paint`)
    await hydrated(watched.page)
    t.ok(watched.requests.includes(`${system.url}${chunkOf(screen)}`), `${path}: the browser fetched the screen's chunk`)
    const fetched = await watched.page.evaluate(
      (chunks) => performance.getEntriesByType('resource').filter((entry) => chunks.some((chunk) => entry.name.endsWith(chunk))).length,
      afterPaint,
    )
    t.equal(fetched, afterPaint.length, `${path}: each chunk listed for after the paint was fetched`)
    t.same(watched.problems, [], `${path}: no console errors (the CSP lets the preloads through)`)
    await watched.page.context().close()
  }
})

t.test('hovering or focusing a link prefetches its payload', async (t) => {
  const watched = await open('/')
  const hovered = watched.page.waitForRequest((request) => request.url().endsWith('/kantoren/_payload.json'))
  await watched.page.hover('nav a[href="/kantoren"]')
  await hovered
  const focused = watched.page.waitForRequest((request) => request.url().endsWith('/contact/_payload.json'))
  await watched.page.focus('nav a[href="/contact"]')
  await focused
  const before = watched.requests.filter((url) => url.endsWith('/kantoren/_payload.json')).length
  await watched.page.click('nav a[href="/kantoren"]')
  await watched.page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, titleOf(store, `${P}Establishments`))
  t.equal(watched.requests.filter((url) => url.endsWith('/kantoren/_payload.json')).length, before, 'the navigation used the prefetch')
  await watched.page.context().close()
})

t.test('touching a link prefetches its payload', async (t) => {
  const watched = await open('/', { hasTouch: true, viewport: { width: 1000, height: 800 } })
  const { page } = watched
  const box = await page.locator('nav a[href="/kantoren"]').boundingBox()
  if (!box) throw new Error('the link is not on screen')
  const touched = page.waitForRequest((request) => request.url().endsWith('/kantoren/_payload.json'), { timeout: 5000 })
  // Only the start of a touch: no tap, so no click and no navigation to fetch it instead.
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: box.x + box.width / 2, y: box.y + box.height / 2 }] })
  await touched
  t.equal(new URL(page.url()).pathname, '/', 'still on the page: a prefetch, not a navigation')
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchCancel', touchPoints: [] })
  await page.context().close()
})

t.test('at most five prefetches run at once', async (t) => {
  const watched = await open('/')
  const { page } = watched
  let active = 0
  let most = 0
  const release: (() => void)[] = []
  await page.route('**/_payload.json', async (route) => {
    active++
    most = Math.max(most, active)
    await new Promise<void>((resolve) => release.push(resolve))
    active--
    await route.continue()
  })
  const links = await page.$$eval('a[href^="/"]', (anchors) => [...new Set(anchors.map((a) => a.getAttribute('href')))].filter((h) => h && h !== '/'))
  t.ok(links.length >= 8, `enough links (${links.length})`)
  for (const href of links) await page.dispatchEvent(`a[href="${href}"] >> nth=0`, 'mouseover')
  await page.waitForTimeout(300)
  t.equal(most, 5, 'five under way, the rest waiting')
  while (release.length > 0 || active > 0) {
    release.splice(0).forEach((go) => go())
    await page.waitForTimeout(50)
  }
  t.equal(most, 5, 'never more than five')
  await page.context().close()
})

t.test('scroll to top or to the anchor; reduced motion scrolls instantly', async (t) => {
  const watched = await open('/onze-verzekeringen', { viewport: { width: 1000, height: 500 }, reducedMotion: 'reduce' })
  const { page } = watched
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight))
  await page.click('footer a[href="/disclaimer"]')
  await page.waitForFunction(() => location.pathname === '/disclaimer')
  await page.waitForFunction(() => window.scrollY === 0)
  t.equal(await page.evaluate(() => window.scrollY), 0, 'at the top')
  const slug = store.findEntries({ section: ['insurances'] }, undefined).at(-1)?.slug
  await page.click(await addLink(page, `/onze-verzekeringen#${slug}`, 'to-anchor'))
  // At the top, below the sticky damage strip: scroll-padding-top keeps it clear of the strip (WCAG 2.4.11).
  await page.waitForFunction((id) => {
    const el = document.getElementById(id)
    const padding = Number.parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0
    return el !== null && Math.abs(el.getBoundingClientRect().top - padding) < 5
  }, slug ?? '')
  const clear = await page.evaluate((id) => (document.getElementById(id)?.getBoundingClientRect().top ?? 0) >= (document.querySelector('.damage-action')?.getBoundingClientRect().bottom ?? 0), slug ?? '')
  t.ok(clear, 'the anchor is at the top of the viewport, below the sticky strip')
  await page.context().close()
})

t.test('the menu: opened by its toggle, closed by navigation', async (t) => {
  const watched = await open('/', { viewport: { width: 390, height: 800 } })
  const { page } = watched
  t.teardown(() => page.context().close())
  const state = () => page.evaluate(() => ({ open: document.querySelector<HTMLDetailsElement>('details.site-menu')?.open }))
  t.same(await state(), { open: false }, 'closed at first')
  t.notOk(await page.isVisible('#hoofdmenu'), 'the menu starts closed on a small screen')
  await page.click('.menu-button')
  t.same(await state(), { open: true }, 'a tap opens it')
  const link = page.locator('#hoofdmenu a[href="/werken-bij"]')
  // isVisible does not wait: an unshown menu fails at once.
  if (!t.ok(await link.isVisible(), 'its links show')) return
  t.equal(await page.evaluate(() => getComputedStyle(document.documentElement).overflowY), 'hidden', 'the page under it does not scroll (the menu scrolls within itself)')
  await link.click()
  await page.waitForFunction(() => location.pathname === '/werken-bij')
  await page.waitForFunction(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open === false, undefined, { timeout: 10_000 }).catch(() => undefined)
  t.same(await state(), { open: false }, 'navigation closed it')
})

t.test('unknown path during client navigation: the 404 page, non-fatal', async (t) => {
  const watched = await open('/')
  const { page } = watched
  await page.click(await addLink(page, '/bestaat-echt-niet?x=1', 'dead'))
  await page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, titleOf(store, 'notFound'))
  t.ok(await sameDocument(watched), 'still the same document')
  t.equal(await page.getAttribute('.error-page', 'data-status'), '404')
  t.match(await page.getAttribute('.loading-bar', 'style'), /background-color: rgb\(0, 114, 227\)/, 'error-page bar colour')
  await page.context().close()
})

t.test('a failed route validation during client navigation: the 404 page with Page Not Found', async (t) => {
  const watched = await open('/')
  const { page } = watched
  const path = '/topical/Geen_Slug!'
  const payloadResponse = page.waitForResponse((response) => response.url().endsWith(`${path}/_payload.json`))
  await page.click(await addLink(page, path, 'invalid-slug'))
  const payload = (await (await payloadResponse).json()) as PagePayload
  t.same(payload.error && { statusCode: payload.error.statusCode, message: payload.error.message }, { statusCode: 404, message: invalidRouteMessage(path) }, `the app's error: ${invalidRouteMessage(path)}`)
  await page.waitForFunction((title) => document.querySelector('main h1')?.textContent === title, titleOf(store, 'notFound'))
  t.equal(new URL(page.url()).pathname, path)
  t.equal(await page.getAttribute('.error-page', 'data-status'), '404', 'the 404 page')
  t.ok(await sameDocument(watched), 'non-fatal: still the same document')
  await page.context().close()
})

t.test('a redirect rule to an external address is a full browser navigation', async (t) => {
  const watched = await open('/')
  const { page } = watched
  await page.route('https://www.kifid.nl/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Kifid</title><h1>Kifid</h1>' }))
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => e.name.includes('/builds/meta/')))
  await page.click(await addLink(page, '/kifid', 'kifid'))
  await page.waitForURL('https://www.kifid.nl/')
  t.equal(await page.textContent('h1'), 'Kifid')
  await page.context().close()
})

t.test('scrolling after navigation is smooth by default and instant under reduced motion', async (t) => {
  for (const [reducedMotion, expected] of [
    ['no-preference', 'smooth'],
    ['reduce', 'instant'],
  ] as const) {
    const watched = await open('/', { reducedMotion })
    const { page } = watched
    await page.evaluate(() => {
      const calls: unknown[] = []
      ;(window as unknown as { scrollCalls: unknown[] }).scrollCalls = calls
      const original = window.scrollTo.bind(window)
      window.scrollTo = ((options: ScrollToOptions) => {
        calls.push(options)
        original(options)
      }) as typeof window.scrollTo
    })
    await page.click('nav a[href="/over-ons"]')
    await page.waitForFunction(() => (window as unknown as { scrollCalls: unknown[] }).scrollCalls.length > 0)
    const calls = await page.evaluate(() => (window as unknown as { scrollCalls: { behavior: string; top: number }[] }).scrollCalls)
    t.same(calls[0], { top: 0, left: 0, behavior: expected }, `${reducedMotion}: ${expected}`)
    await page.context().close()
  }
})
