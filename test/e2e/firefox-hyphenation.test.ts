import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'puppeteer-core'
import t from 'tap'
import { openFirefoxPage, systemWithFirefox, visit } from '../helpers/firefox.ts'

// Hyphenation only where it helps. Firefox hyphenates Dutch (Chromium on
// Linux has no Dutch dictionary, so only this engine shows it): never the
// brand, the damage bar's and other controls, e-mail addresses or phone
// numbers; in headings no word of a few syllables; in running text only long words.
const { system, firefox } = await systemWithFirefox(t)
const PAGES = ['/', '/onze-dienstverlening/schade-melden', '/kantoren', '/contact', '/over-ons']

/**
 * The words inside the elements `selector` finds that run over two lines:
 * hyphenated, or broken. A word is a run of letters and digits between
 * spaces and hard hyphens (a line may end after "Oost-" in "Oost-Nederland").
 */
const splitWords = (page: Page, selector: string): Promise<string[]> =>
  page.evaluate((within) => {
    const out: string[] = []
    for (const element of document.querySelectorAll(within)) {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT)
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of (node.textContent ?? '').matchAll(/[^\s\-\u2010\u2011/·–]+/g)) {
          const range = document.createRange()
          range.setStart(node, match.index)
          range.setEnd(node, match.index + match[0].length)
          const lines = new Set([...range.getClientRects()].filter((box) => box.width > 0).map((box) => Math.round(box.bottom)))
          if (lines.size > 1) out.push(match[0])
        }
      }
    }
    return out
  }, selector)

const letters = (word: string): number => word.replace(/[^\p{L}]/gu, '').length

t.test('at 390 px: the brand, the controls, e-mail addresses and phone numbers are never split; headings only in a very long word; running text only in long words', async (t) => {
  const { page, close } = await openFirefoxPage(firefox, { width: 390, height: 844 })
  t.teardown(close)
  for (const path of PAGES) {
    await visit(page, `${system.url}${path}`)
    const whole = await splitWords(page, '.site-logo, .damage-action, .menu-button, .button, .next-step__actions, a[href^="mailto:"], a[href^="tel:"]')
    t.same(whole, [], `${path}: the brand, the damage bar, the buttons, addresses and numbers whole`)
    const headings = (await splitWords(page, 'main :is(h1, h2, h3)')).filter((word) => letters(word) < 20)
    t.same(headings, [], `${path}: no heading word under 20 letters split`)
    const text = (await splitWords(page, 'main')).filter((word) => letters(word) < 12)
    t.same(text, [], `${path}: no word under 12 letters split in running text`)
  }
  await visit(page, `${system.url}/`)
  t.same(await splitWords(page, 'main h1'), [], `the home heading whole ("${await page.evaluate(() => document.querySelector('main h1')?.textContent)}")`)
})

t.test('in running text a long compound is still hyphenated where the line needs it', async (t) => {
  const { page, close } = await openFirefoxPage(firefox, { width: 390, height: 844 })
  t.teardown(close)
  await visit(page, `${system.url}/onze-dienstverlening/schade-melden`)
  // A paragraph of the page's own running text, narrowed: the long word fills the first line, hyphenated.
  const split = await page.evaluate(() => {
    const paragraph = document.querySelector('main .rich-text p') as HTMLElement
    paragraph.textContent = 'Uw aansprakelijkheidsverzekering'
    paragraph.style.width = '15ch'
    const range = document.createRange()
    range.selectNodeContents(paragraph)
    return new Set([...range.getClientRects()].map((box) => Math.round(box.bottom))).size
  })
  t.ok(split >= 2, `the word runs over ${split} lines`)
  const first = await page.evaluate(() => {
    const node = (document.querySelector('main .rich-text p') as HTMLElement).firstChild as Text
    const range = document.createRange()
    range.setStart(node, 0)
    range.setEnd(node, 1)
    const line = range.getBoundingClientRect().bottom
    range.setStart(node, 3)
    range.setEnd(node, 4)
    return Math.round(range.getBoundingClientRect().bottom) === Math.round(line)
  })
  t.ok(first, 'it starts on the first line, beside "Uw", hyphenated rather than moved whole')
})

const folder = mkdtempSync(join(tmpdir(), 'firefox-hyphens-'))
t.teardown(() => rmSync(folder, { recursive: true, force: true }))

t.test('printed (Firefox prints the page for real): every e-mail address of the page on one line', async (t) => {
  const { page, close } = await openFirefoxPage(firefox, { width: 1024, height: 800 })
  t.teardown(close)
  for (const path of ['/onze-dienstverlening/schade-melden', '/kantoren']) {
    await visit(page, `${system.url}${path}`)
    const addresses = await page.evaluate(() => [...new Set([...document.querySelectorAll('a[href^="mailto:"]')].map((link) => link.textContent ?? ''))])
    const file = join(folder, 'page.pdf')
    writeFileSync(file, await page.pdf({ format: 'A4' }))
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' })
    t.ok(addresses.length >= 2, `${path}: ${addresses.join(', ')}`)
    t.same(addresses.filter((address) => !text.includes(address)), [], `${path}: each printed whole`)
  }
})
