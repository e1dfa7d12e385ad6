import type { Browser as ChromiumBrowser } from 'playwright-core'
import type { Browser as FirefoxBrowser } from 'puppeteer-core'
import { hydrated, launchBrowser } from './browser.ts'
import { launchFirefox, openFirefoxPage, visit } from './firefox.ts'
import { type System, type SystemEnv, startSystem } from './system.ts'

// One test, both engines: the few things a test does to a page, the same in
// Chromium (playwright-core) and Firefox (puppeteer-core over WebDriver BiDi).

/** A function run in the page: no named inner functions (tsx would wrap them in a helper the page lacks). */
export type InPage<A, R> = (arg: A) => R

export interface Tab {
  /** Loads the page and waits until it has hydrated. */
  visit(path: string): Promise<void>
  run<A, R>(fn: InPage<A, R>, arg: A): Promise<Awaited<R>>
  /** Resolves once `fn` holds in the page. */
  until<A>(fn: InPage<A, boolean>, arg: A): Promise<void>
  /** A press of the main mouse button at a point of the window (as a tap: nothing scrolled first). */
  clickAt(x: number, y: number): Promise<void>
  click(selector: string): Promise<void>
  close(): Promise<void>
}

export interface Engine {
  name: 'chromium' | 'firefox'
  open(viewport: { width: number; height: number }): Promise<Tab>
}

function chromiumEngine(browser: ChromiumBrowser, base: string): Engine {
  return {
    name: 'chromium',
    async open(viewport) {
      const context = await browser.newContext({ viewport })
      const page = await context.newPage()
      return {
        async visit(path) {
          await page.goto(`${base}${path}`)
          await hydrated(page)
        },
        run: (fn, arg) => page.evaluate(fn as (arg: unknown) => unknown, arg) as never,
        until: async (fn, arg) => void (await page.waitForFunction(fn as (arg: unknown) => boolean, arg)),
        clickAt: (x, y) => page.mouse.click(x, y),
        click: (selector) => page.click(selector),
        close: () => context.close(),
      }
    },
  }
}

function firefoxEngine(firefox: FirefoxBrowser, base: string): Engine {
  return {
    name: 'firefox',
    async open(viewport) {
      const { page, close } = await openFirefoxPage(firefox, viewport)
      return {
        visit: (path) => visit(page, `${base}${path}`),
        run: (fn, arg) => page.evaluate(fn as (arg: unknown) => unknown, arg) as never,
        until: async (fn, arg) => void (await page.waitForFunction(fn as (arg: unknown) => boolean, {}, arg)),
        clickAt: (x, y) => page.mouse.click(x, y),
        click: (selector) => page.click(selector),
        close,
      }
    },
  }
}

interface Teardown {
  teardown(fn: () => Promise<void>): void
}

/** Both services, a Chromium and a Firefox for one test file, all closed when it ends. */
export async function systemWithBothEngines(t: Teardown, env: SystemEnv = {}): Promise<{ system: System; engines: Engine[] }> {
  const system = await startSystem(env)
  const [chromium, firefox] = await Promise.all([launchBrowser(), launchFirefox()])
  t.teardown(async () => {
    await Promise.all([chromium.close(), firefox.close()])
    await system.close()
  })
  return { system, engines: [chromiumEngine(chromium, system.url), firefoxEngine(firefox, system.url)] }
}
