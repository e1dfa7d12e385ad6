import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'puppeteer-core'
import t from 'tap'
import { DEFAULT_SITE_HANDLE as P, DAMAGE_PAGE_PATH } from '../../shared/constants.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'
import { openFirefoxPage, scrollWindow, systemWithFirefox, visit } from '../helpers/firefox.ts'

// The behaviours that matter most, in Firefox as well as Chromium (the other
// e2e tests): a page hydrates without a console error, a link navigates on
// the client, Back and Forward return to where the visitor was, the menu
// opens, reaches its links and closes, the damage bar's number is a tap away,
// and a printed page keeps its content and the company's registrations.
const store = shippedContent()
const { system, firefox } = await systemWithFirefox(t)
const PHONE = { width: 390, height: 844 }

const heading = (page: Page) => page.evaluate(() => document.querySelector('main h1')?.textContent ?? '')
const waitForHeading = (page: Page, text: string) =>
  page.waitForFunction((expected) => document.querySelector('main h1')?.textContent === expected, {}, text)

t.test('every kind of page hydrates without a console error or warning', async (t) => {
  const { page, problems, close } = await openFirefoxPage(firefox, { width: 1280, height: 800 })
  t.teardown(close)
  for (const path of ['/', '/over-ons', '/actueel', '/kantoren', '/onze-dienstverlening/schade-melden', '/onze-verzekeringen/autoverzekering']) {
    await visit(page, `${system.url}${path}`)
    t.same(problems.splice(0), [], `${path}: hydrated, nothing in the console`)
  }
})

t.test('a link navigates on the client: same document, new heading, title and focus, the data from _payload.json', async (t) => {
  const { page, problems, requests, close } = await openFirefoxPage(firefox, { width: 1280, height: 800 })
  t.teardown(close)
  await visit(page, `${system.url}/`)
  await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true))
  const about = titleOf(store, `${P}About`)
  await page.click('nav a[href="/over-ons"]')
  await waitForHeading(page, about)
  t.equal(new URL(page.url()).pathname, '/over-ons')
  t.ok(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true), 'no full page load')
  t.ok(requests.some((url) => url.endsWith('/over-ons/_payload.json')), 'the data came from _payload.json')
  t.match(await page.title(), about, 'the title changed')
  await page.waitForFunction(() => document.activeElement?.tagName === 'H1')
  t.pass('the focus moved to the heading')
  t.same(problems, [], 'nothing in the console')
})

t.test('Back and Forward return to where the visitor left each page', async (t) => {
  const { page, problems, close } = await openFirefoxPage(firefox, { width: 1000, height: 500 })
  t.teardown(close)
  await visit(page, `${system.url}/actueel`)
  const overview = await heading(page)
  await scrollWindow(page, 214)
  // An article link on screen at 214 px, so the click itself does not scroll.
  const href = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLAnchorElement>('main a[href^="/actueel/"]')]
      .find((a) => a.getBoundingClientRect().top > 0 && a.getBoundingClientRect().bottom < window.innerHeight)
      ?.getAttribute('href'),
  )
  if (!href) throw new Error('no article link on screen')
  await page.click(`main a[href="${href}"]`)
  await page.waitForFunction((from) => (document.querySelector('main h1')?.textContent ?? from) !== from, {}, overview)
  const article = await heading(page)
  await page.waitForFunction(() => window.scrollY === 0)
  t.pass('the article starts at the top')
  const articleY = await scrollWindow(page, Math.min(150, await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)))
  t.ok(articleY > 0, `the article scrolls (${articleY} px)`)

  await page.goBack()
  await waitForHeading(page, overview)
  await page.waitForFunction(() => Math.round(window.scrollY) === 214)
  t.pass('Back: the overview where it was left')
  await page.goForward()
  await waitForHeading(page, article)
  await page.waitForFunction((y) => Math.round(window.scrollY) === y, {}, articleY)
  t.pass('Forward: the article where it was left')
  t.same(problems, [], 'nothing in the console')
})

t.test('on a phone the menu opens, each of its links can be tapped, and it closes by Escape and by a navigation', async (t) => {
  const { page, close } = await openFirefoxPage(firefox, PHONE)
  t.teardown(close)
  await visit(page, `${system.url}/`)
  const isOpen = () => page.evaluate(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open)
  t.equal(await isOpen(), false, 'closed at first')
  await page.click('.menu-button')
  await page.waitForFunction(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open === true)
  const covered = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLAnchorElement>('#hoofdmenu a')].flatMap((link) => {
      link.scrollIntoView({ block: 'center', behavior: 'instant' })
      const box = link.getBoundingClientRect()
      const hit = document.elementFromPoint(box.left + Math.min(box.width / 2, 20), box.top + box.height / 2)
      return box.height > 0 && hit && link.contains(hit) ? [] : [link.textContent ?? '']
    }),
  )
  t.same(covered, [], 'every menu link is shown and nothing covers it')
  await page.keyboard.press('Escape')
  await page.waitForFunction(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open === false)
  t.ok(await page.evaluate(() => document.activeElement?.classList.contains('menu-button')), 'Escape closed it, the focus back on its button')
  await page.click('.menu-button')
  await page.waitForFunction(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open === true)
  await page.click('#hoofdmenu a[href="/werken-bij"]')
  await page.waitForFunction(() => location.pathname === '/werken-bij')
  await page.waitForFunction(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open === false)
  t.pass('a navigation closed it')
})

t.test('on a phone the damage bar is on screen at the top and at the end of a page, and a tap reaches its number', async (t) => {
  const { page, close } = await openFirefoxPage(firefox, PHONE)
  t.teardown(close)
  await visit(page, `${system.url}/over-ons`)
  const reachable = () =>
    page.evaluate(() => {
      const link = document.querySelector<HTMLAnchorElement>('.damage-action a[href^="tel:"]')
      if (!link) return 'no number in the bar'
      const box = link.getBoundingClientRect()
      if (box.top < 0 || box.bottom > window.innerHeight || box.height < 44) return `at ${Math.round(box.top)}–${Math.round(box.bottom)} of ${window.innerHeight}`
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)
      return hit && link.contains(hit) ? 'reached' : `covered by ${hit?.className}`
    })
  t.equal(await reachable(), 'reached', 'at the top')
  await scrollWindow(page, 'end')
  t.equal(await reachable(), 'reached', 'at the end')
  t.ok(await page.$(`.damage-action a[href="${DAMAGE_PAGE_PATH}"]`), 'the damage page beside it')
})

const folder = mkdtempSync(join(tmpdir(), 'firefox-print-'))
t.teardown(() => rmSync(folder, { recursive: true, force: true }))
const words = (text: string): string[] => text.split(/\s+/).filter(Boolean)
/** The text of each sheet of a printed PDF (poppler's pdftotext). */
function sheetsOf(pdf: Uint8Array): string[] {
  const file = join(folder, 'page.pdf')
  writeFileSync(file, pdf)
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).split('\f').slice(0, -1)
}

// WebDriver BiDi has no print-media emulation (puppeteer's emulateMediaType is Chromium's DevTools protocol): Firefox prints the page for real.
t.test('printed: the content and the registrations, no navigation, menu or damage bar, and no sheet of the footer alone', async (t) => {
  const { page, close } = await openFirefoxPage(firefox, { width: 1024, height: 800 })
  t.teardown(close)
  for (const path of ['/', '/onze-dienstverlening/schade-melden', '/kantoren']) {
    await visit(page, `${system.url}${path}`)
    const title = await heading(page)
    const sheets = sheetsOf(await page.pdf({ format: 'A4' }))
    const text = sheets.join('\n')
    t.ok(text.replace(/\s+/g, ' ').includes(title), `${path}: its heading is printed`)
    t.match(text, /AFM-vergunning \d+[\s\S]*KvK \d+/, `${path}: and the registration numbers`)
    t.notMatch(text, /Naar de inhoud|\bMenu\b|Schade\?\s+Bel/, `${path}: not the skip link, the menu button or the damage bar`)
    // A word of the footer as the screen shows it (more than is printed) does not make a sheet its own.
    const footer = new Set(words(await page.$eval('.site-footer', (element) => (element as HTMLElement).innerText)))
    for (const [index, sheet] of sheets.entries()) {
      const own = words(sheet).filter((word) => !footer.has(word))
      t.ok(own.length > 0, `${path}: sheet ${index + 1} holds more than the footer (${own.slice(0, 4).join(' ')}…)`)
    }
  }
})
