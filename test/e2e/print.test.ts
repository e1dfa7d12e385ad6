import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { Page } from 'playwright-core'
import { hydrated } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'

// On paper: no navigation, black text on white (the footer's registration
// numbers and phone numbers included), and no page that holds only the footer.
const { system, browser } = await systemWithBrowser(t)

const PAGES = ['/', '/onze-dienstverlening/schade-melden', '/kantoren', '/actueel/van-verlegen-starter-naar-professional-in-haar-vakgebied']

type Rgb = [number, number, number]
const luminance = (rgb: Rgb): number => {
  const [R, G, B] = rgb.map((v) => {
    const c = v / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }) as Rgb
  return 0.2126 * R + 0.7152 * G + 0.0722 * B
}
const contrast = (a: Rgb, b: Rgb): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (hi + 0.05) / (lo + 0.05)
}

/**
 * Each text element of the footer with its colour and the first opaque
 * background behind it (white where none is). Plain JavaScript in a string:
 * tsx would wrap the named functions of an evaluated closure in a helper the page lacks.
 */
const FOOTER_COLOURS = `(() => {
  const rgb = (value) => {
    const [r = 0, g = 0, b = 0, a = 1] = (value.match(/[\\d.]+/g) ?? []).map(Number)
    return [r, g, b, value.startsWith('rgba') ? a : 1]
  }
  const result = []
  for (const element of document.querySelectorAll('.site-footer p, .site-footer a, .site-footer h2, .site-footer address, .site-footer dt, .site-footer dd')) {
    if (!element.offsetParent || !element.textContent.trim()) continue
    const [r, g, b] = rgb(getComputedStyle(element).color)
    let background = [255, 255, 255]
    for (let node = element; node; node = node.parentElement) {
      const [br, bg, bb, ba] = rgb(getComputedStyle(node).backgroundColor)
      if (ba > 0) {
        background = [br, bg, bb]
        break
      }
    }
    result.push({ text: element.textContent.trim().slice(0, 40), colour: [r, g, b], background })
  }
  return result
})()`
const footerColours = (page: Page): Promise<{ text: string; colour: Rgb; background: Rgb }[]> => page.evaluate(FOOTER_COLOURS)

const folder = mkdtempSync(join(tmpdir(), 'print-'))
t.teardown(() => rmSync(folder, { recursive: true, force: true }))

/** The text of each sheet of a printed PDF (poppler's pdftotext, installed by scripts/ensure-test-deps.mjs). */
function sheetsOf(pdf: Buffer): string[] {
  const file = join(folder, 'page.pdf')
  writeFileSync(file, pdf)
  const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' })
  // pdftotext ends every sheet with a form feed.
  return text.split('\f').slice(0, -1)
}

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean)

t.test('printed, a page has no navigation, its footer is dark on white, and no sheet holds only the footer', async (t) => {
  const context = await browser.newContext({ viewport: { width: 1024, height: 800 } })
  t.teardown(() => context.close())
  const page = await context.newPage()
  for (const path of PAGES) {
    await page.goto(`${system.url}${path}`)
    await hydrated(page)
    await page.emulateMedia({ media: 'print' })
    for (const selector of ['.site-nav', '.menu-button', '.loading-bar', '.skip-link']) {
      t.equal(await page.locator(selector).evaluate((element) => getComputedStyle(element).display), 'none', `${path}: ${selector} is not printed`)
    }
    const colours = await footerColours(page)
    t.ok(colours.length >= 5, `${path}: ${colours.length} footer texts`)
    for (const { text, colour, background } of colours) t.ok(contrast(colour, background) >= 4.5, `${path}: "${text}" at ${contrast(colour, background).toFixed(1)}:1`)
    t.match(await page.locator('.site-footer').innerText(), /AFM-vergunning .*Kifid/, `${path}: the registration numbers are printed`)
    const footer = new Set(words(await page.locator('.site-footer').innerText()))
    const sheets = sheetsOf(await page.pdf({ format: 'A4' }))
    t.ok(sheets.length >= 1, `${path}: ${sheets.length} sheet(s)`)
    for (const [index, sheet] of sheets.entries()) {
      const own = words(sheet).filter((word) => !footer.has(word))
      t.ok(own.length > 0, `${path}: sheet ${index + 1} holds more than the footer (${own.slice(0, 4).join(' ')}…)`)
    }
    await page.emulateMedia({ media: 'screen' })
  }
})

t.test('printed, the main text says where its links go', async (t) => {
  const context = await browser.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  await page.goto(`${system.url}/onze-dienstverlening/compliment-tip-of-klacht`)
  await page.emulateMedia({ media: 'print' })
  const after = await page.locator('.main a[href^="http"]').first().evaluate((link) => getComputedStyle(link, '::after').content)
  t.match(after, /attr\(href\)|https?:/, 'an external link is followed by its address')
  const tel = await page.locator('.main a[href^="tel:"], .main a[href^="mailto:"]').first().evaluate((link) => getComputedStyle(link, '::after').content)
  t.equal(tel, 'none', 'a phone number or address is not repeated')
})
