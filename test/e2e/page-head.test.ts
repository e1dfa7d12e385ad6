import t from 'tap'
import type { Page } from 'playwright-core'
import { type WatchedPage, addLink, hydrated, openPage } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { shippedContent, slugsOf } from '../helpers/content.ts'
import { h1Of } from '../helpers/html.ts'

// After hydration and after every client navigation, the document's head must say what the
// server sends for that address: one title, one description, canonical, robots, Open Graph,
// Twitter and the JSON-LD, and nothing left over from the page before.

const store = shippedContent()
const { system, browser } = await systemWithBrowser(t)

const MISSING = '/bestaat-niet'
const ARTICLE = `/topical/${slugsOf(store, 'topical')[0]}`
const JOB = `/jobs/${slugsOf(store, 'jobs')[0]}`

/** The tags a search engine or share preview reads, each occurrence listed (a copy shows as a second entry). */
interface HeadTags {
  /** Title, meta and canonical count only in the head: left in the body, they would be missing here. */
  titles: string[]
  /** `name or property=content` of every meta element, sorted. */
  meta: string[]
  canonical: (string | null)[]
  /** Every JSON-LD block of the document, re-serialised, sorted. */
  jsonLd: string[]
}

/**
 * Reads the tags from the live document (`html` null) or from the server's HTML, parsed by the
 * same browser: one reading for both sides. Runs in the page, so it names no inner functions.
 */
const headTagsOf = (html: string | null): HeadTags => {
  // The fetched page's <style> elements carry that response's nonce; a parsed document inherits this page's policy,
  // so Chromium would report them as violations. The head's tags compared here are no styles.
  const doc = html === null ? document : new DOMParser().parseFromString(html.replace(/<style\b[^>]*>[\s\S]*?<\/style>/g, ''), 'text/html')
  return {
    titles: [...doc.head.querySelectorAll('title')].map((title) => title.textContent ?? ''),
    meta: [...doc.head.querySelectorAll('meta')]
      .map((meta) => {
        const key = meta.getAttribute('name') ?? meta.getAttribute('property') ?? meta.getAttribute('http-equiv') ?? 'charset'
        return `${key}=${meta.getAttribute('content') ?? meta.getAttribute('charset')}`
      })
      .sort(),
    canonical: [...doc.head.querySelectorAll('link[rel="canonical"]')].map((link) => link.getAttribute('href')),
    // JSON-LD counts wherever it is: search engines read it in the body as well.
    jsonLd: [...doc.querySelectorAll('script[type="application/ld+json"]')].map((script) => JSON.stringify(JSON.parse(script.textContent ?? 'null'))).sort(),
  }
}

/** What the server renders for a path, fetched with a plain request. */
async function serverPage(page: Page, path: string): Promise<{ tags: HeadTags; h1: string }> {
  const response = await fetch(`${system.url}${path}`)
  const html = await response.text()
  const h1 = h1Of(html)
  if (!h1) throw new Error(`${path}: the server's page has no h1`)
  // Only the missing page may be missing: a 404 by mistake would compare error page with error page.
  if (response.status !== (path === MISSING ? 404 : 200)) throw new Error(`${path}: the server answered ${response.status}`)
  return { tags: await page.evaluate(headTagsOf, html), h1 }
}

/**
 * Remembers the tags the HTML parser put in the document, once it is done and before any module
 * script runs: what React must claim, not copy. Kept aside, not marked on the nodes: a marking
 * attribute would itself be a hydration mismatch to React's development build.
 */
const REMEMBER_SERVER_TAGS = `window.serverTags = new WeakSet()
document.addEventListener('readystatechange', () => {
  if (document.readyState !== 'interactive') return
  for (const node of document.querySelectorAll('title, meta, link, script[type="application/ld+json"]')) window.serverTags.add(node)
})`

const isNotFound = (problem: string): boolean => problem.includes('404')

async function open(path: string): Promise<WatchedPage> {
  const watched = await openPage(browser)
  await watched.page.addInitScript(REMEMBER_SERVER_TAGS)
  await watched.page.goto(`${system.url}${path}`)
  await hydrated(watched.page)
  return watched
}

/** Tags in the document that the HTML parser did not make: React's own, had it not claimed the server's. */
const addedByScript = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll('title, meta, link[rel="canonical"], script[type="application/ld+json"]')]
      .filter((node) => !(window as unknown as { serverTags: WeakSet<Element> }).serverTags.has(node))
      .map((node) => node.outerHTML.slice(0, 120)),
  )

t.test('after hydration the head is the server\'s: each tag once, claimed by React rather than copied', async (t) => {
  for (const path of ['/', '/actueel', ARTICLE, JOB, '/kantoren', MISSING]) {
    const watched = await open(path)
    const { page } = watched
    const server = await serverPage(page, path)
    const live = await page.evaluate(headTagsOf, null)
    t.same(live, server.tags, `${path}: the same tags as the server's HTML`)
    t.equal(live.titles.length, 1, `${path}: one title`)
    const keys = live.meta.map((entry) => entry.slice(0, entry.indexOf('=')))
    t.same(keys.filter((key, index) => keys.indexOf(key) !== index), [], `${path}: no meta element twice`)
    t.ok(live.canonical.length <= 1, `${path}: at most one canonical`)
    t.same(await addedByScript(page), [], `${path}: React made no tag of its own next to the server's`)
    t.same(watched.problems.filter((problem) => !isNotFound(problem)), [], `${path}: no console errors (no hydration mismatch)`)
    await page.context().close()
  }
})

t.test('after each client navigation the head equals what the server renders for the new address', async (t) => {
  const watched = await open('/')
  const { page } = watched
  await page.evaluate(() => {
    ;(window as unknown as { sameDocument: boolean }).sameDocument = true
  })
  t.same(await page.evaluate(headTagsOf, null), (await serverPage(page, '/')).tags, 'home, as loaded')

  /** Runs a navigation, waits for the new page's heading, and compares the head with the server's for `path`. */
  const expectHeadOf = async (path: string, label: string, go: () => Promise<unknown>): Promise<HeadTags> => {
    const server = await serverPage(page, path)
    await go()
    await page.waitForFunction(
      ([pathname, h1]) => location.pathname === pathname && document.querySelector('main h1')?.textContent?.trim() === h1,
      [path, server.h1] as const,
    )
    const live = await page.evaluate(headTagsOf, null)
    t.same(live, server.tags, `${label} (${path}): title, meta, canonical and JSON-LD are the server's`)
    t.equal(live.titles.length, 1, `${label}: one title`)
    return server.tags
  }

  await expectHeadOf('/actueel', 'the news overview', () => page.click('nav a[href="/actueel"]'))
  const articleHref = await page.getAttribute('main a[href^="/actueel/"]', 'href')
  if (!articleHref) throw new Error('no article on /actueel')
  const articleTags = await expectHeadOf(articleHref, 'an article', () => page.click(`main a[href="${articleHref}"]`))
  t.ok(articleTags.meta.includes('og:type=article') && articleTags.jsonLd.some((item) => item.includes('"NewsArticle"')), 'the article is an og:type article with a NewsArticle')
  const jobTags = await expectHeadOf(JOB, 'a job', async () => page.click(await addLink(page, JOB, 'to-job')))
  t.ok(jobTags.jsonLd.some((item) => item.includes('"JobPosting"')), 'the job has its JobPosting')
  const errorTags = await expectHeadOf(MISSING, 'the 404 page', async () => page.click(await addLink(page, MISSING, 'to-missing')))
  t.same(errorTags.canonical, [], 'the error page has no canonical (so the previous one must go)')
  t.ok(errorTags.meta.includes('robots=noindex'), 'the error page is noindex')
  t.notOk(errorTags.meta.some((entry) => /^(description|og:description|twitter:description|og:url)=/.test(entry)), 'the error page has no description and no og:url')
  t.same(errorTags.jsonLd, [], 'the error page has no JSON-LD')
  await expectHeadOf('/kantoren', 'a page after the error page', () => page.click('nav a[href="/kantoren"]'))
  await expectHeadOf(MISSING, 'back to the 404 page', () => page.goBack())
  await expectHeadOf(JOB, 'back to the job', () => page.goBack())

  t.ok(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true), 'all of it client navigation, one document')
  t.same(watched.problems.filter((problem) => !isNotFound(problem)), [], 'no console errors')
  await page.context().close()
})
