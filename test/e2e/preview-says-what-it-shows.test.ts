import t from 'tap'
import type { Page } from 'playwright-core'
import { hydrated, openPage } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { DEFAULT_SITE_HANDLE as P } from '../../shared/constants.ts'
import { shippedContent, titleOf } from '../helpers/content.ts'

// What an editor meets with a preview link that Craft no longer knows (or
// never did): Craft ignores a well-formed unknown token and answers with the
// live content, so the bar says that this is the published version, or, on a
// 404, that the link may have expired. Also: the bar after the skip link, and
// no scheduled or draft date shown as published in a preview's lists or JSON-LD.
const UNKNOWN = 'expired-token-from-last-week'
const NEW_ARTICLE = 'preview-token-new-article'
const ABOUT_DRAFT = 'preview-token-about-draft'
const DRAFT_ARTICLE_PATH = '/topical/concept-nieuwsbericht-renteverandering'
/** Where lists link it: its Craft uri. */
const DRAFT_ARTICLE_LINK = '/actueel/concept-nieuwsbericht-renteverandering'
const DRAFT_ARTICLE_TITLE = 'Concept: premies 2027'
const DRAFT_ARTICLE_DATE = '20 november 2026'
const store = shippedContent()
const liveAbout = titleOf(store, `${P}About`)

const { system, browser } = await systemWithBrowser(t)

const barText = async (page: Page): Promise<string> => ((await page.locator('aside.preview-bar p').textContent()) ?? '').replace(/\s+/g, ' ').trim()

t.test('an unknown token on a published page: the live page, and the bar says so and why', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  t.teardown(() => page.context().close())
  const response = await page.goto(`${system.url}/over-ons?x-craft-preview=1&token=${UNKNOWN}`)
  await hydrated(page)
  t.equal(response?.status(), 200, 'Craft answers with the live content')
  t.equal(await page.textContent('main h1'), liveAbout, 'the live page')
  const text = await barText(page)
  t.match(text, 'dit is de gepubliceerde versie', `the bar says it is the published version: "${text}"`)
  t.match(text, 'de voorbeeldlink verlopen of ongeldig', 'and that the link may have expired')
  t.match(text, 'Open het voorbeeld opnieuw vanuit het CMS', 'and what to do')
  t.notMatch(text, 'niet gepubliceerd', 'never that it is unpublished')
  t.equal(await page.locator('aside.preview-bar').getAttribute('data-shows'), 'published')
  t.equal(await page.locator('.draft-marker').count(), 0, 'no draft label')

  // The token that has a draft of this page: the bar as before.
  await page.goto(`${system.url}/over-ons?x-craft-preview=1&token=${ABOUT_DRAFT}`)
  await hydrated(page)
  t.equal(await barText(page), 'Voorbeeldweergave — niet gepubliceerd', 'a draft: not published')
  t.same(watched.problems, [])
})

t.test('an unknown token on a never-published article: the 404 says the link may have expired', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  t.teardown(() => page.context().close())
  const response = await page.goto(`${system.url}${DRAFT_ARTICLE_PATH}?x-craft-preview=1&token=${UNKNOWN}`)
  t.equal(response?.status(), 404)
  const text = await barText(page)
  t.match(text, 'deze pagina is niet gevonden', `the bar: "${text}"`)
  t.match(text, 'De voorbeeldlink is mogelijk verlopen of ongeldig', 'the link may have expired')
  t.equal(await page.locator('aside.preview-bar').getAttribute('data-shows'), 'missing')
  // With its own token the same address is the draft.
  await page.goto(`${system.url}${DRAFT_ARTICLE_PATH}?x-craft-preview=1&token=${NEW_ARTICLE}`)
  t.equal(await page.textContent('main h1'), DRAFT_ARTICLE_TITLE)
  t.equal(await barText(page), 'Voorbeeldweergave — niet gepubliceerd')
})

t.test('the skip link comes first, the bar after it', async (t) => {
  const { page } = await openPage(browser)
  t.teardown(() => page.context().close())
  await page.goto(`${system.url}/over-ons?x-craft-preview=1&token=${ABOUT_DRAFT}`)
  await hydrated(page)
  await page.keyboard.press('Tab')
  t.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Naar de inhoud', 'first the skip link')
  await page.keyboard.press('Tab')
  t.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Voorbeeld sluiten', "then the bar's button")
  await page.keyboard.press('Shift+Tab')
  await page.keyboard.press('Enter')
  await page.waitForFunction(() => document.activeElement?.id === 'inhoud')
  t.pass('the skip link still takes the focus to the content')
})

t.test("a preview's lists and JSON-LD give an unpublished entry no publication date", async (t) => {
  const { page } = await openPage(browser)
  t.teardown(() => page.context().close())
  const cardOf = (page: Page) => page.locator('li', { has: page.locator(`a[href="${DRAFT_ARTICLE_LINK}"]`) })

  await page.goto(`${system.url}/actueel?x-craft-preview=1&token=${NEW_ARTICLE}`)
  await hydrated(page)
  const card = cardOf(page)
  t.equal(await card.count(), 1, '/actueel lists the draft in its preview')
  const meta = (await card.locator('.meta').textContent()) ?? ''
  t.notMatch(meta, DRAFT_ARTICLE_DATE, `no date it never had: "${meta}"`)
  t.match(meta, 'Nog niet gepubliceerd')
  t.equal(await card.locator('time').count(), 0, 'no <time>')

  await page.goto(`${system.url}/?x-craft-preview=1&token=${NEW_ARTICLE}`)
  await hydrated(page)
  await page.waitForSelector('.latest-news__content[data-loaded="true"]')
  const latest = cardOf(page)
  t.equal(await latest.count(), 1, "the home page's latest news has it")
  t.notMatch((await latest.textContent()) ?? '', DRAFT_ARTICLE_DATE, 'without its date')
  t.match((await latest.textContent()) ?? '', 'Nog niet gepubliceerd')

  const jsonLd = async (path: string) => {
    await page.goto(`${system.url}${path}`)
    return page.evaluate(() =>
      [...document.querySelectorAll('script[type="application/ld+json"]')].map((script) => JSON.parse(script.textContent ?? 'null') as Record<string, unknown>).find((item) => item['@type'] === 'NewsArticle'),
    )
  }
  const draft = await jsonLd(`${DRAFT_ARTICLE_PATH}?x-craft-preview=1&token=${NEW_ARTICLE}`)
  t.equal(draft?.headline, DRAFT_ARTICLE_TITLE, 'the draft has its NewsArticle')
  t.notOk(draft && 'datePublished' in draft, `without datePublished: ${JSON.stringify(draft?.datePublished)}`)
  const live = await jsonLd('/topical/premies-2027-uitgelegd')
  t.ok(typeof live?.datePublished === 'string', 'a published article keeps its datePublished')
})
