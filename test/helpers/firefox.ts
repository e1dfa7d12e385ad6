import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { type System, type SystemEnv, startSystem } from './system.ts'

// The second engine of the browser tests: Debian's firefox-esr (installed by
// scripts/ensure-test-deps.mjs), driven over WebDriver BiDi by puppeteer-core,
// which never downloads a browser. Playwright's own Firefox is a patched build
// that cannot be fetched here, and it does not drive a stock Firefox.

export const FIREFOX = '/usr/bin/firefox-esr'

/**
 * Firefox, headless, with a fresh profile in a temporary folder (puppeteer's), so it starts as root too. A start
 * on a loaded machine may take longer than puppeteer's 30 s, and a first start that fails is tried once more, with
 * its error on stderr: the tests are about the site, not about how Firefox starts.
 */
export async function launchFirefox(): Promise<Browser> {
  const launch = () => puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true, timeout: 120_000 })
  try {
    return await launch()
  } catch (error) {
    console.error('firefox did not start, trying once more:', error)
    return launch()
  }
}

interface Teardown {
  teardown(fn: () => Promise<void>): void
}

/** Both services and a Firefox for one test file, all closed when it ends. */
export async function systemWithFirefox(t: Teardown, env: SystemEnv = {}): Promise<{ system: System; firefox: Browser }> {
  const system = await startSystem(env)
  const firefox = await launchFirefox().catch(async (error: unknown) => {
    await system.close()
    throw error
  })
  t.teardown(async () => {
    await firefox.close()
    await system.close()
  })
  return { system, firefox }
}

export interface FirefoxPage {
  page: Page
  /** Console errors and warnings, and uncaught page errors. */
  problems: string[]
  /** Every URL the page asked for. */
  requests: string[]
  close(): Promise<void>
}

/** A page in a browser context of its own (no cookies or cache shared with another test), at the given window size. */
export async function openFirefoxPage(firefox: Browser, viewport: { width: number; height: number }): Promise<FirefoxPage> {
  const context = await firefox.createBrowserContext()
  const page = await context.newPage()
  await page.setViewport(viewport)
  const problems: string[] = []
  const requests: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn') problems.push(`${message.type()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`pageerror: ${error instanceof Error ? error.message : String(error)}`))
  page.on('request', (request) => requests.push(request.url()))
  return { page, problems, requests, close: () => context.close().catch(alreadyClosed) }
}

/**
 * Closing a context whose page is between two documents (a full load a test
 * set off) can fail in puppeteer's WebDriver BiDi layer with "Browsing context
 * already closed": the page is gone either way, which is what closing wants.
 */
function alreadyClosed(error: unknown): void {
  if (!String(error).includes('Browsing context already closed')) throw error
}

/**
 * Loads `url` as a new document and waits until React has hydrated it. The
 * address is checked first: the page before it was hydrated too.
 */
export async function visit(page: Page, url: string): Promise<void> {
  await page.goto(url)
  const { pathname } = new URL(url)
  await page.waitForFunction((path) => location.pathname === path, {}, pathname)
  await page.waitForSelector('#root[data-hydrated="true"]')
}

/** Scrolls the window at once (not smoothly) and waits until it is there; 'end' is as far down as it goes. */
export async function scrollWindow(page: Page, to: number | 'end'): Promise<number> {
  const top = await page.evaluate((y) => {
    const target = y === 'end' ? document.documentElement.scrollHeight - window.innerHeight : y
    window.scrollTo({ top: target, left: 0, behavior: 'instant' })
    return Math.round(target)
  }, to)
  await page.waitForFunction((y) => Math.abs(window.scrollY - y) < 1, {}, top)
  return top
}
