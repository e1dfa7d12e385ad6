import t from 'tap'
import type { Page } from 'playwright-core'
import { hydrated } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { TEXT_SPACING_CSS, barFit, barProblems, focusHidden, setDefaultFontSize, unreachableMenuLinks } from '../helpers/device-conditions.ts'

// The site as visitors' devices show it (issue 37): a small phone, the
// browser's text at 200%, the WCAG 1.4.12 text spacing, 400% zoom with the
// menu open, a keyboard on a phone, forced colours, and a tap on "Menu" before
// the scripts have arrived. The pages that show each behaviour, not every page.
const { system, browser } = await systemWithBrowser(t)

/** A page in a fresh context; reduced motion, so that focus and scrollIntoView scroll at once (no smooth scrolling to wait for). */
async function open(t: { teardown(fn: () => Promise<void>): void }, options: Parameters<typeof browser.newContext>[0]): Promise<Page> {
  const context = await browser.newContext({ reducedMotion: 'reduce', ...options })
  t.teardown(() => context.close())
  return context.newPage()
}

const conditions: { name: string; viewport: { width: number; height: number }; fontSize?: number; spacing?: boolean; paths: string[] }[] = [
  { name: '320×568', viewport: { width: 320, height: 568 }, paths: ['/', '/contact'] },
  { name: '360×640 with the default font size at 32 px', viewport: { width: 360, height: 640 }, fontSize: 32, paths: ['/', '/contact', '/kantoren'] },
  // The bookmarklet's style sheet is injected as a user's would be: past the page's Content-Security-Policy.
  { name: '390×844 with the WCAG 1.4.12 text spacing', viewport: { width: 390, height: 844 }, spacing: true, paths: ['/contact'] },
]

for (const condition of conditions) {
  t.test(`at ${condition.name}: nothing scrolls sideways, the damage number is whole and on screen, the header's parts do not overlap`, async (t) => {
    const page = await open(t, { viewport: condition.viewport, bypassCSP: condition.spacing === true })
    if (condition.fontSize) await setDefaultFontSize(page, condition.fontSize)
    for (const path of condition.paths) {
      await page.goto(`${system.url}${path}`)
      if (condition.spacing) await page.addStyleTag({ content: TEXT_SPACING_CSS })
      await hydrated(page)
      const fit = await barFit(page)
      t.same(barProblems(fit), [], `${path}: fits (bar ${Math.round(fit.bar.height)} px, number at ${Math.round(fit.call?.left ?? NaN)}–${Math.round(fit.call?.right ?? NaN)})`)
    }
    // The bar says what it is, on a phone too.
    t.match(await page.locator('.damage-action a[href^="tel:"]').innerText(), /Schade\?\s+Bel\s+24\/7\s+088/, 'the call reads "Schade? Bel 24/7 …"')
  })
}

t.test('at 320×256 (400% zoom) with the menu open, every menu link can be scrolled into view, and nothing covers it', async (t) => {
  const page = await open(t, { viewport: { width: 320, height: 256 } })
  await page.goto(`${system.url}/`)
  await hydrated(page)
  await page.locator('.menu-button').click()
  await page.locator('#hoofdmenu a').first().waitFor({ state: 'visible', timeout: 5_000 })
  t.ok((await page.locator('#hoofdmenu a').count()) >= 10, 'the menu has its links, the damage ones among them')
  t.same(await unreachableMenuLinks(page), [], 'each one reached')
})

for (const path of ['/kantoren']) {
  t.test(`keyboard on a phone (390×844), ${path}: no focused element is hidden behind the fixed bar`, async (t) => {
    const page = await open(t, { viewport: { width: 390, height: 844 } })
    await page.goto(`${system.url}${path}`)
    await hydrated(page)
    const hidden: string[] = []
    let stops = 0
    // Tab until the footer: the page's content and the bar's own links.
    while (stops < 100 && !(await page.evaluate(() => !!document.activeElement?.closest('footer')))) {
      await page.keyboard.press('Tab')
      stops++
      const problem = await focusHidden(page)
      if (problem) hidden.push(problem)
    }
    t.ok(stops > 8 && stops < 100, `${stops} focus stops`)
    t.same(hidden, [], 'each one in full view')
  })
}

t.test('forced colours: the current page of /actueel stands out, and the focus ring shows', async (t) => {
  const page = await open(t, { viewport: { width: 1280, height: 900 }, forcedColors: 'active' })
  await page.goto(`${system.url}/actueel`)
  const look = (selector: string) =>
    page.locator(selector).first().evaluate((element) => {
      const style = getComputedStyle(element)
      return { color: style.color, background: style.backgroundColor }
    })
  const current = await look('main [aria-current="page"]')
  const other = await look('.pagination a:not([aria-current])')
  t.not(current.background, other.background, `its background differs (${current.background} against ${other.background})`)
  t.not(current.color, other.color, 'and its text colour')
  await page.locator('.pagination a:not([aria-current])').first().focus()
  const ring = await page.evaluate(() => {
    const style = getComputedStyle(document.activeElement as Element)
    return { style: style.outlineStyle, width: Number.parseFloat(style.outlineWidth) }
  })
  t.ok(ring.style !== 'none' && ring.width >= 2, `a focused link has an outline (${ring.style} ${ring.width} px)`)
})

t.test('a tap on "Menu" before the scripts have arrived opens the menu, and it stays open once they have', async (t) => {
  const page = await open(t, { viewport: { width: 390, height: 844 } })
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  // Every script of the page waits until the tap has been made.
  await page.route('**/assets/*.js', async (route) => {
    await held
    await route.continue()
  })
  await page.goto(`${system.url}/`, { waitUntil: 'commit' })
  await page.locator('.menu-button').click()
  t.ok(await page.locator('#hoofdmenu a[href="/contact"]').isVisible(), 'open at once, with HTML and CSS alone')
  t.notOk(await page.locator('.damage-action').isVisible(), 'the bar gives the open menu the window (the menu has the damage links)')
  release()
  await hydrated(page)
  t.ok(await page.locator('#hoofdmenu a[href="/contact"]').isVisible(), 'hydrated, it still is')
  await page.waitForFunction(() => document.getElementById('app')?.classList.contains('app--menu-open'))
  t.pass('and the app root has the open menu\'s class')
  await page.keyboard.press('Escape')
  t.notOk(await page.locator('#hoofdmenu').isVisible(), 'the hydrated page closes it (Escape)')
})

t.test('the bar names the damage line; the general number gives its hours; "Bel 112" is a tap to call', async (t) => {
  const page = await open(t, { viewport: { width: 390, height: 844 } })
  await page.goto(`${system.url}/onze-verzekeringen`)
  t.match(await page.getAttribute('.damage-action', 'aria-label'), /^Schadelijn/, 'the bar\'s name')
  const insurance = await page.locator('main .cards h2 a, main .cards h3 a').first().getAttribute('href')
  await page.goto(`${system.url}${insurance}`)
  const call = page.locator('.next-step a[href^="tel:"]')
  const described = await call.getAttribute('aria-describedby')
  if (t.ok(described, 'the call button is described')) t.equal(await page.locator(`#${described}`).innerText(), 'Bereikbaar ma t/m vr 08:30 – 17:00', 'by the site\'s opening hours (the global set: working days, closed at the weekend)')
  await page.goto(`${system.url}/onze-dienstverlening/schade-melden`)
  t.equal(await page.locator('main a[href="tel:112"]').innerText(), '112', '112 is a link')
})

t.test('a client navigation asks for the screen\'s chunk and its imports while its payload is still on its way', async (t) => {
  const page = await open(t, { viewport: { width: 1280, height: 900 } })
  await page.goto(`${system.url}/`)
  await hydrated(page)
  const modules = await page.evaluate(() => (JSON.parse(document.getElementById('__CONFIG__')?.textContent ?? '{}') as { screenModules?: Record<string, string[]> }).screenModules?.service ?? [])
  t.ok(modules.length >= 2, `the service screen's chunk and its import (${modules.join(', ')})`)
  const seen = new Set<string>()
  const allAsked = new Promise<boolean>((resolve) => {
    page.on('request', (request) => {
      seen.add(new URL(request.url()).pathname.split('/').pop() ?? '')
      if (modules.every((file) => seen.has(file))) resolve(true)
    })
  })
  // The payload is held until the code has been asked for: a chain (payload, then chunk, then import) never gets there.
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route('**/_payload.json', async (route) => {
    await held
    await route.continue()
  })
  await page.locator('.damage-action a[href="/onze-dienstverlening/schade-melden"]').click()
  const parallel = await Promise.race([allAsked, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000))])
  release()
  t.ok(parallel, `all asked for before the payload arrived (seen: ${[...seen].filter((name) => name.endsWith('.js')).join(', ')})`)
  await page.waitForFunction(() => location.pathname === '/onze-dienstverlening/schade-melden' && document.querySelector('main h1')?.textContent === 'Schade melden', undefined, { timeout: 10_000 })
  t.equal(await page.evaluate(() => performance.getEntriesByType('navigation').length === 1 && (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).name.endsWith('/')), true, 'and it was a client navigation')
})
