import type { Browser } from 'playwright-core'
import { launchBrowser } from './browser.ts'
import { type System, type SystemEnv, startSystem } from './system.ts'

interface Teardown {
  teardown(fn: () => Promise<void>): void
}

/** Both services and a browser for one test file, all closed when it ends. */
export async function systemWithBrowser(t: Teardown, env: SystemEnv = {}): Promise<{ system: System; browser: Browser }> {
  const system = await startSystem(env)
  const browser = await launchBrowser()
  t.teardown(async () => {
    await browser.close()
    await system.close()
  })
  return { system, browser }
}
