import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { loadGatewayConfig } from '../../gateway/config.ts'
import { LIVE_UPDATES_PATH } from '../../shared/constants.ts'
import { hydrated, openPage } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'

const TOKEN = 'preview-token-about-draft'
const contentDir = mkdtempSync(join(tmpdir(), 'live-content-'))
cpSync(loadGatewayConfig({}).contentDir, contentDir, { recursive: true })
const draftFile = ['site-topical.json', 'site-pages.json'].map((name) => join(contentDir, name)).find((file) => readFileSync(file, 'utf8').includes(TOKEN))
if (!draftFile) throw new Error('no content file holds the About draft')

const { system, browser } = await systemWithBrowser(t, { CONTENT_DIR: contentDir, GRAPHQL_WS_URL: LIVE_UPDATES_PATH })

t.test('a page in live preview re-renders when the entry changes, without a reload', async (t) => {
  const watched = await openPage(browser)
  const { page } = watched
  const socket = page.waitForEvent('websocket')
  await page.goto(`${system.url}/over-ons?x-craft-live-preview=1&token=${TOKEN}`)
  await hydrated(page)
  t.equal(await page.textContent('main h1'), 'Over Havenborg (concept)')
  const ws = await socket
  t.match(ws.url(), LIVE_UPDATES_PATH, 'a graphql-transport-ws socket to the CMS')
  await page.evaluate(() => {
    ;(window as unknown as { sameDocument: boolean }).sameDocument = true
  })
  await page.waitForTimeout(300)

  writeFileSync(draftFile, readFileSync(draftFile, 'utf8').replace('Over Havenborg (concept)', 'Over Havenborg (concept, bijgewerkt)'))
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Over Havenborg (concept, bijgewerkt)')
  t.ok(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true), 'no reload')
  await page.context().close()
})

t.test('visitors without a preview token open no socket', async (t) => {
  const watched = await openPage(browser)
  let sockets = 0
  watched.page.on('websocket', () => sockets++)
  await watched.page.goto(`${system.url}/over-ons`)
  await hydrated(watched.page)
  await watched.page.waitForTimeout(1000)
  t.equal(sockets, 0)
  await watched.page.context().close()
})

t.test('without GRAPHQL_WS_URL no socket is opened, even in preview', async (t) => {
  const other = await systemWithBrowser(t)
  const watched = await openPage(other.browser)
  let sockets = 0
  watched.page.on('websocket', () => sockets++)
  await watched.page.goto(`${other.system.url}/over-ons?x-craft-live-preview=1&token=${TOKEN}`)
  await hydrated(watched.page)
  await watched.page.waitForTimeout(1000)
  t.equal(sockets, 0)
  await watched.page.context().close()
})
