import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { hydrated, openPage } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'

/**
 * Issue 49, findings 5 to 7, as a visitor on a phone meets them: the
 * footer's hours say whose they are and lead to an office open on Saturday;
 * an address typed with capitals, a common word or a typo reaches the page
 * meant; a vacancy's mail link names the vacancy, and the terms and the
 * form the pages assume are explained where they are read.
 */
const { system, browser } = await systemWithBrowser(t)
const PHONE = { viewport: { width: 390, height: 844 } }

const open = async (t: Test, path: string): Promise<Page> => {
  const { page } = await openPage(browser, PHONE)
  t.teardown(() => page.context().close())
  await page.goto(`${system.url}${path}`)
  await hydrated(page)
  return page
}
/** The text a reader sees (rendered text: nothing hidden by CSS), one space for any run of white space. */
const shownText = (page: Page, selector: string): Promise<string> => page.evaluate((within) => (document.querySelector<HTMLElement>(within)?.innerText ?? '').replace(/\s+/g, ' '), selector)
const heading = (page: Page): Promise<string> => page.evaluate(() => document.querySelector('main h1')?.textContent ?? '')

t.test("finding 5: the footer's hours are the telephone's, and its link leads to the office open on Saturday", async (t) => {
  const page = await open(t, '/')
  const hours = await shownText(page, '.site-footer [aria-labelledby="footer-hours"]')
  t.match(hours, /^Telefonisch bereikbaar /, 'the hours say whose they are')
  t.match(hours, /Zaterdag Gesloten/, "the telephone's Saturday")
  await page.click('.site-footer a:text-is("Openingstijden per kantoor")')
  await page.waitForURL(`${system.url}/kantoren`)
  // The offices' page once it is on screen (a client navigation): Zwolle's card with its Saturday.
  await page.waitForFunction(() => /Kantoor Zwolle[^]*Zaterdag\s+09:00 – 12:00/.test(document.querySelector<HTMLElement>('main')?.innerText ?? ''))
  t.pass("the offices' page shows Zwolle open on Saturday morning")
})

t.test('finding 6: an address typed with capitals, a common word or a typo reaches the page meant', async (t) => {
  const { page } = await openPage(browser, PHONE)
  t.teardown(() => page.context().close())
  for (const [typed, meant] of [
    ['/Kantoren', '/kantoren'],
    ['/Onze-Verzekeringen/Autoverzekering', '/onze-verzekeringen/autoverzekering'],
    ['/kantoor', '/kantoren'],
    ['/vacatures', '/werken-bij'],
    ['/klacht', '/onze-dienstverlening/compliment-tip-of-klacht'],
    ['/offerte', '/contact'],
  ] as const) {
    const answer = await page.goto(`${system.url}${typed}`)
    t.same([new URL(page.url()).pathname, answer?.status()], [meant, 200], `${typed}: ${meant}`)
  }
  await page.goto(`${system.url}/onze-verzekeringen/autoverzekring`)
  await hydrated(page)
  t.equal(await page.evaluate(() => document.querySelector('.error-page__suggestion')?.textContent), 'Bedoelde u /onze-verzekeringen/autoverzekering?', 'the typo: a 404 that names the page meant')
  await page.click('.error-page__suggestion a')
  await page.waitForURL(`${system.url}/onze-verzekeringen/autoverzekering`)
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Autoverzekering')
  t.pass('one tap on it: the page')
})

t.test("finding 7: a vacancy's mail link names the vacancy; the terms and the digital damage form are explained where they are read", async (t) => {
  const job = await open(t, '/werken-bij/allround-schadebehandelaar')
  const mail = await job.getAttribute('main a[href^="mailto:vacatures@"]', 'href')
  t.equal(mail && decodeURIComponent(new URL(mail).search), `?subject=Sollicitatie: ${await heading(job)}`, 'the subject names the vacancy')

  const contents = await open(t, '/onze-verzekeringen/inboedelverzekering')
  const text = await shownText(contents, 'main')
  t.match(text, /De inboedelwaardemeter is /, 'the inboedelwaardemeter explained where it is used')
  t.match(text, /De verzekerde som is /, 'and the verzekerde som')

  const damage = await open(t, '/onze-dienstverlening/schade-melden')
  const advice = await shownText(damage, 'main')
  t.match(advice, /app Europees Schadeformulier/, 'the car-damage advice names the digital form')
  t.match(advice, /papier/, 'and where a paper one comes from')
})
