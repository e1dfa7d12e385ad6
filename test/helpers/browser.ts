import { type Browser, type BrowserContextOptions, type ConsoleMessage, type Page, chromium } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'

/** Debian's chromium, headless, with the flags this closed network needs (playwright gives each launch a fresh profile). */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

export interface WatchedPage {
  page: Page
  /** Console errors and warnings, and uncaught page errors. */
  problems: string[]
  requests: string[]
}

export async function openPage(browser: Browser, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext(options)
  const page = await context.newPage()
  const problems: string[] = []
  const requests: string[] = []
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`))
  page.on('request', (request) => requests.push(request.url()))
  return { page, problems, requests }
}

/** Resolves once React has hydrated the page (the client marks the root). */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForSelector('#root[data-hydrated="true"]', { state: 'attached' })
}

/** Puts a link to `href` at the top of the page's main content and returns its selector. */
export async function addLink(page: Page, href: string, id: string): Promise<string> {
  await page.evaluate(
    ([target, linkId]) => {
      const a = document.createElement('a')
      a.href = target as string
      a.id = linkId as string
      a.textContent = linkId as string
      document.querySelector('main')?.prepend(a)
    },
    [href, id],
  )
  return `#${id}`
}

/**
 * One real macrotask in the page (past a fake clock): promises waiting on what
 * already arrived have run, and events queued before it have been dispatched.
 */
export const settle = (page: Page): Promise<void> =>
  page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const channel = new MessageChannel()
        channel.port1.onmessage = () => resolve()
        channel.port2.postMessage(null)
      }),
  )
