// Issue 37's findings, measured in Debian's Chromium against the built site on
// the embedded content: the damage bar and the header at 320 px, with 200% text
// and with WCAG 1.4.12 spacing; the open menu at 400% zoom; the focus behind the
// fixed bar; a client navigation on Slow 3G with a 4× slower CPU against a fresh
// load of the same page (a ratio, median of 5 runs); a tap on "Menu" before
// hydration; and the smaller ones. A report, not a test: nothing here asserts.
//
//   npm run build && node --import tsx scripts/device-conditions.mjs [--runs=5] [--only=slow] [--client-only]
import { launchBrowser } from '../test/helpers/browser.ts'
import { TEXT_SPACING_CSS, barFit, barProblems, focusHidden, setDefaultFontSize, unreachableMenuLinks } from '../test/helpers/device-conditions.ts'
import { startSystem } from '../test/helpers/system.ts'

const args = Object.fromEntries(process.argv.slice(2).map((arg) => {
  const [name, value = 'true'] = arg.replace(/^--/, '').split('=')
  return [name, value]
}))
const RUNS = Number(args.runs ?? 5)
const only = args.only
const DAMAGE = '/onze-dienstverlening/schade-melden'

const system = await startSystem()
const browser = await launchBrowser()
const hydrated = (page) => page.waitForSelector('#root[data-hydrated="true"]', { state: 'attached' })
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

async function page(viewport, setup) {
  // Reduced motion: focus and scrollIntoView scroll at once, not smoothly, so that what is measured is where they end.
  const context = await browser.newContext({ viewport, bypassCSP: true, reducedMotion: 'reduce' })
  const p = await context.newPage()
  if (setup) await setup(p)
  return p
}

async function layouts() {
  console.log('\n## 1. The damage bar and the header')
  const cases = [
    ['/contact at 320×568', { width: 320, height: 568 }, null],
    ['/contact at 390×844 with WCAG 1.4.12 spacing', { width: 390, height: 844 }, 'spacing'],
    ['/contact at 360×640 with 200% text (32 px)', { width: 360, height: 640 }, 'text'],
    ['/ at 360×640 with 200% text (32 px)', { width: 360, height: 640 }, 'text'],
  ]
  for (const [name, viewport, condition] of cases) {
    const p = await page(viewport, (p) => (condition === 'text' ? setDefaultFontSize(p, 32) : undefined))
    await p.goto(`${system.url}${name.split(' ')[0]}`)
    if (condition === 'spacing') await p.addStyleTag({ content: TEXT_SPACING_CSS })
    await hydrated(p)
    const fit = await barFit(p)
    const text = await p.locator('.damage-action a[href^="tel:"]').innerText()
    console.log(`- ${name}: page ${fit.scrollWidth} px wide; number at x ${Math.round(fit.call?.left)}–${Math.round(fit.call?.right)}, y ${Math.round(fit.call?.top)}–${Math.round(fit.call?.bottom)}; bar ${Math.round(fit.bar.height)} px high, ${Math.round(fit.bar.space)} px kept for it; "${text.replace(/\s+/g, ' ')}"; ${barProblems(fit).join('; ') || 'fits'}`)
    await p.context().close()
  }
}

async function menu() {
  console.log('\n## 2. The open menu')
  for (const [name, viewport, text] of [['320×256 (400% zoom)', { width: 320, height: 256 }, 16], ['360×640 with 200% text', { width: 360, height: 640 }, 32]]) {
    const p = await page(viewport, (p) => setDefaultFontSize(p, text))
    await p.goto(`${system.url}/`)
    await hydrated(p)
    await p.locator('.menu-button').click()
    const total = await p.locator('#hoofdmenu a').count()
    const out = await unreachableMenuLinks(p)
    console.log(`- ${name}: ${total - out.length} of ${total} links reachable${out.length ? `; not: ${out.join(', ')}` : ''}`)
    await p.context().close()
  }
}

async function focus() {
  console.log('\n## 3. Keyboard focus behind the fixed bar (390×844, Tab through the page)')
  for (const path of ['/', '/onze-verzekeringen', '/kantoren', '/werken-bij']) {
    const p = await page({ width: 390, height: 844 })
    await p.goto(`${system.url}${path}`)
    await hydrated(p)
    const hidden = []
    let steps = 0
    for (;;) {
      await p.keyboard.press('Tab')
      steps++
      const inFooter = await p.evaluate(() => !!document.activeElement?.closest('footer') || document.activeElement === document.body)
      const problem = await focusHidden(p)
      if (problem) hidden.push(problem)
      if (inFooter || steps > 200) break
    }
    console.log(`- ${path}: ${hidden.length} of ${steps} focus stops hidden${hidden.length ? `: ${hidden.join('; ')}` : ''}`)
    await p.context().close()
  }
}

/** Slow 3G as DevTools defines it, and a CPU 4× slower. */
async function throttle(p) {
  const session = await p.context().newCDPSession(p)
  await session.send('Network.enable')
  await session.send('Network.emulateNetworkConditions', { offline: false, latency: 2000, downloadThroughput: 50_000, uploadThroughput: 50_000 })
  await session.send('Emulation.setCPUThrottlingRate', { rate: 4 })
  return session
}

async function slow() {
  console.log(`\n## 4. Slow 3G + 4× CPU: client navigation / → ${DAMAGE} against a fresh load (median of ${RUNS})`)
  const ratios = []
  for (let run = 0; run < RUNS; run++) {
    // The fresh load: its first contentful paint, from the navigation's start.
    const fresh = await page({ width: 390, height: 844 })
    await throttle(fresh)
    await fresh.goto(`${system.url}${DAMAGE}`, { waitUntil: 'commit' })
    const paint = await fresh.evaluate(
      () =>
        new Promise((resolve) =>
          new PerformanceObserver((list, observer) => {
            const entry = list.getEntriesByName('first-contentful-paint')[0]
            if (entry) {
              observer.disconnect()
              resolve(entry.startTime)
            }
          }).observe({ type: 'paint', buffered: true }),
        ),
    )
    await fresh.context().close()
    // The client navigation: the home page loaded and hydrated, then a tap on the bar's "Schade melden"; until its heading shows.
    const nav = await page({ width: 390, height: 844 })
    // --client-only: the browser reports no connection type, so the client never falls back to a full load.
    if (args['client-only'] !== undefined) await nav.addInitScript(() => Object.defineProperty(Navigator.prototype, 'connection', { get: () => undefined }))
    await throttle(nav)
    if (args.verbose !== undefined) {
      nav.on('console', (message) => console.log(`  console ${message.type()}: ${message.text()}`))
      nav.on('request', (request) => console.log(`  ${Date.now() % 100_000} request ${request.url().replace(system.url, '')}`))
    }
    await nav.goto(`${system.url}/`)
    await hydrated(nav)
    await nav.waitForLoadState('networkidle')
    const before = await nav.evaluate(() => document.querySelector('main h1')?.textContent)
    const link = nav.locator(`.damage-action a[href="${DAMAGE}"]`)
    await link.hover()
    const started = Date.now()
    await link.click({ noWaitAfter: true })
    // Polled from here, so that a full navigation (the fallback), which replaces the document, is measured the same way.
    for (;;) {
      const title = await nav.evaluate(() => document.querySelector('main h1')?.textContent).catch(() => before)
      if (title && title !== before) break
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    const took = Date.now() - started
    const full = await nav.evaluate(() => performance.getEntriesByType('navigation')[0]?.name ?? '')
    await nav.context().close()
    ratios.push(took / paint)
    console.log(`- run ${run + 1}: navigation ${Math.round(took)} ms${full.endsWith(DAMAGE) ? ' (a full load)' : ''}, fresh load's first paint ${Math.round(paint)} ms, ratio ${(took / paint).toFixed(2)}`)
  }
  console.log(`- median ratio: ${median(ratios).toFixed(2)}`)
}

async function beforeHydration() {
  console.log('\n## 5. A tap on "Menu" before the scripts arrive (390×844)')
  const p = await page({ width: 390, height: 844 })
  let release
  const held = new Promise((resolve) => (release = resolve))
  await p.route('**/assets/*.js', async (route) => {
    await held
    await route.continue()
  })
  await p.goto(`${system.url}/`, { waitUntil: 'commit' })
  await p.locator('.menu-button').click()
  const openBefore = await p.locator('#hoofdmenu a[href="/contact"]').isVisible()
  release()
  await hydrated(p)
  const openAfter = await p.locator('#hoofdmenu a[href="/contact"]').isVisible()
  console.log(`- menu open right after the tap: ${openBefore}; after hydration: ${openAfter}`)
  await p.context().close()
}

async function smaller() {
  console.log('\n## 6. Smaller')
  const p = await page({ width: 390, height: 844 })
  await p.goto(`${system.url}/onze-verzekeringen`)
  await hydrated(p)
  console.log(`- the bar on a phone: "${(await p.locator('.damage-action').innerText()).replace(/\s+/g, ' ')}"`)
  const name = await p.evaluate(() => {
    const bar = document.querySelector('.damage-action')
    const labelledBy = bar?.getAttribute('aria-labelledby')
    return bar?.getAttribute('aria-label') ?? (labelledBy ? document.getElementById(labelledBy)?.textContent : null)
  })
  console.log(`- the bar's accessible name: "${name}"`)
  const insurance = await p.locator('main .cards a').first().getAttribute('href')
  await p.goto(`${system.url}${insurance}`)
  const general = await p.locator('.next-step').innerText()
  console.log(`- the general number's call action on ${insurance}: "${general.split('\n').filter((line) => /Bel|bereikbaar|open/i.test(line)).join(' / ')}"`)
  await p.goto(`${system.url}${DAMAGE}`)
  console.log(`- "112" on ${DAMAGE} as a tel: link: ${await p.locator('main a[href="tel:112"]').count()}`)
  await p.context().close()
  const forced = await browser.newContext({ viewport: { width: 390, height: 844 }, forcedColors: 'active' })
  const f = await forced.newPage()
  await f.goto(`${system.url}/actueel`)
  const styles = await f.evaluate(() =>
    [document.querySelector('.pagination [aria-current="page"]'), document.querySelector('.pagination a:not([aria-current])')].map((element) => {
      if (!element) return null
      const s = getComputedStyle(element)
      return `${s.color} on ${s.backgroundColor}, border ${s.borderTopWidth} ${s.borderTopStyle} ${s.borderTopColor}, outline ${s.outlineStyle}, weight ${s.fontWeight}, decoration ${s.textDecorationLine}`
    }),
  ).then(([current, other]) => ({ current, other }))
  console.log(`- forced colours on /actueel: current page ${styles.current}; another ${styles.other}; ${styles.current === styles.other ? 'the same' : 'they differ'}`)
  await forced.close()
}

try {
  const parts = { layouts, menu, focus, slow, beforeHydration, smaller }
  for (const [name, run] of Object.entries(parts)) if (!only || only.split(',').includes(name)) await run()
} finally {
  await browser.close()
  await system.close()
}
