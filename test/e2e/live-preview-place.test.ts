import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { Frame, Page } from 'playwright-core'
import { request } from 'undici'
import { LIVE_PREVIEW_HEADER } from '../../shared/constants.ts'
import { PLACE_STORAGE_KEY } from '../../renderer/client/live-preview-place.ts'
import { hydrated, openPage } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { framingCms } from '../helpers/framing-cms.ts'
import { ROOT } from '../helpers/processes.ts'

// Craft's live preview rebuilds its iframe on every change. A page in it keeps
// its scroll position across a fresh iframe of the same address, speaks
// iframe-resizer's protocol with a CMS that uses it (`useIframeResizer`), and
// is recognised by the query or by the X-Craft-Live-Preview header. A visitor's
// page names none of this and loads none of its bytes.
const ABOUT_DRAFT = 'preview-token-about-draft'
const PLACE = 900
const { assets } = JSON.parse(readFileSync(join(ROOT, 'dist/build.json'), 'utf8')) as { assets: { client: string; livePreview: string } }
const RESIZER_PARENT = readFileSync(join(ROOT, 'node_modules/iframe-resizer/js/iframeResizer.js'), 'utf8')

const cms = await framingCms(t)
const { system, browser } = await systemWithBrowser(t, { CMS_ORIGIN: cms.origin })

/** The CMS's page: `frame(src)` puts a fresh iframe in place of the last one, as Craft's live preview does on every change. */
const cmsPage = (head = '', options = '') => `<!DOCTYPE html><title>CMS</title>${head}<div id="box"></div><script>
window.messages = []
addEventListener('message', (event) => { if (typeof event.data === 'string' && event.data.startsWith('[iFrameSizer]')) window.messages.push(event.data) })
window.frame = (src) => {
  const iframe = document.createElement('iframe')
  iframe.id = 'preview'; iframe.width = '1000'; iframe.height = '600'; iframe.src = src
  document.getElementById('box').replaceChildren(iframe)
  ${options}
}
</script>`

/**
 * The site as the CMS frames it: another origin of the same site (localhost on
 * another port), as a CMS at cms.example.nl frames www.example.nl. A frame of
 * another site gets no session storage where the browser blocks third-party
 * storage (Chromium's fresh contexts do): docs/craft.md.
 */
const siteUrl = system.url.replace('127.0.0.1', 'localhost')
const livePreviewUrl = (path: string, mark: string) => `${siteUrl}${path}${path.includes('?') ? '&' : '?'}x-craft-live-preview=${mark}&token=${ABOUT_DRAFT}`

/** Puts a fresh iframe of `src` into the CMS's page; its frame once the page in it has hydrated. */
async function showInFrame(page: Page, src: string): Promise<Frame> {
  await page.evaluate((address) => (window as unknown as { frame(src: string): void }).frame(address), src)
  const frame = await (await page.waitForSelector('#preview')).contentFrame()
  if (!frame) throw new Error('no frame')
  await frame.waitForSelector('#root[data-hydrated="true"]', { state: 'attached' })
  return frame
}

t.test('a fresh iframe of the same page keeps its place (Craft without iframe-resizer, its default)', async (t) => {
  cms.show(cmsPage())
  const watched = await openPage(browser)
  const { page } = watched
  t.teardown(() => page.context().close())
  await page.goto(`${cms.origin}/`)
  let frame = await showInFrame(page, livePreviewUrl('/', 'first'))
  t.equal(await frame.locator('.preview-bar').count(), 0, 'no bar in live preview')
  t.equal(await frame.locator(`script[src="${assets.livePreview}"]`).count(), 1, "live preview's script is named")
  t.equal(await frame.evaluate(() => Math.round(window.scrollY)), 0, 'the first frame starts at the top')

  await frame.evaluate((top) => window.scrollTo({ top, behavior: 'instant' }), PLACE)
  await frame.waitForFunction(([key, top]) => (JSON.parse(sessionStorage.getItem(key as string) ?? 'null') as { top?: number } | null)?.top === top, [PLACE_STORAGE_KEY, PLACE] as const)

  // Craft's next refresh: a new iframe, a new x-craft-live-preview value, the same page.
  frame = await showInFrame(page, livePreviewUrl('/', 'second'))
  await frame.waitForFunction((top) => Math.round(window.scrollY) === top, PLACE)
  t.pass(`the fresh iframe is scrolled to ${PLACE} px again`)
  t.equal(await frame.locator('main h1').count(), 1, 'with the page in it')

  // Another page in a fresh iframe starts at the top, as its own.
  frame = await showInFrame(page, livePreviewUrl('/kantoren', 'third'))
  await frame.waitForLoadState('load')
  t.equal(await frame.evaluate(() => Math.round(window.scrollY)), 0, 'another page starts at the top')
  t.same(watched.problems, [], 'no console error under the Content-Security-Policy')
})

t.test("with the CMS's iframe-resizer (useIframeResizer), parent and child exchange their messages and the frame takes the page's height", async (t) => {
  cms.show(
    cmsPage(
      `<script>${RESIZER_PARENT}</script>`,
      `iFrameResize({ checkOrigin: false, scrolling: true, onInit: () => { window.resizerReady = true }, onResized: (size) => { window.resizedTo = Number(size.height) } }, iframe)`,
    ),
  )
  const watched = await openPage(browser)
  const { page } = watched
  t.teardown(() => page.context().close())
  await page.goto(`${cms.origin}/`)
  const frame = await showInFrame(page, livePreviewUrl('/', 'resized'))
  await page.waitForFunction(() => (window as unknown as { resizerReady?: boolean }).resizerReady === true)
  t.pass("iframe-resizer's parent got the child's init")
  const messages = await page.evaluate(() => (window as unknown as { messages: string[] }).messages)
  t.ok(messages.some((message) => /^\[iFrameSizer\]preview:\d+:\d+:init$/.test(message)), `the child answered with its size: ${messages[0]}`)
  const contentHeight = await frame.evaluate(() => document.body.offsetHeight)
  t.ok(contentHeight > 600, `the page (${contentHeight} px) is longer than the frame was`)
  await page.waitForFunction(() => (document.getElementById('preview')?.offsetHeight ?? 0) > 600)
  const frameHeight = await page.evaluate(() => document.getElementById('preview')?.offsetHeight ?? 0)
  t.ok(Math.abs(frameHeight - contentHeight) < 100, `the iframe took the page's height: ${frameHeight} px for ${contentHeight} px`)
  t.same(watched.problems, [])
})

t.test('live preview by the X-Craft-Live-Preview header as by the query; never for a visitor', async (t) => {
  const html = async (path: string, headers: Record<string, string> = {}) => (await request(`${system.url}${path}`, { headers })).body.text()
  const byHeader = await html(`/over-ons?x-craft-preview=1&token=${ABOUT_DRAFT}`, { [LIVE_PREVIEW_HEADER]: 'abc' })
  t.notMatch(byHeader, 'class="preview-bar"', 'the header: no bar')
  t.match(byHeader, assets.livePreview, "and live preview's script")
  const byQuery = await html(`/over-ons?x-craft-live-preview=abc&token=${ABOUT_DRAFT}`)
  t.notMatch(byQuery, 'class="preview-bar"', 'the query: no bar')
  t.match(byQuery, assets.livePreview)
  const shared = await html(`/over-ons?x-craft-preview=1&token=${ABOUT_DRAFT}`)
  t.match(shared, 'class="preview-bar"', 'a preview link: the bar')
  t.notMatch(shared, assets.livePreview, "and no live preview's script")
  const visitor = await html('/over-ons', { [LIVE_PREVIEW_HEADER]: 'abc' })
  t.notMatch(visitor, 'class="preview-bar"', 'a visitor with the header alone: no preview')
  t.notMatch(visitor, 'live-preview', "nor live preview's script")
})

t.test("a visitor's page names none of live preview's code, and its bundle holds none of it", async (t) => {
  for (const path of ['/', '/over-ons', '/actueel']) {
    const html = await (await request(`${system.url}${path}`)).body.text()
    t.notMatch(html, 'live-preview', `${path} names no live preview script`)
    t.notMatch(html, 'iFrameSizer', `${path} holds no iframe-resizer`)
  }
  const watched = await openPage(browser)
  t.teardown(() => watched.page.context().close())
  await watched.page.goto(`${system.url}/`)
  await hydrated(watched.page)
  t.same(watched.requests.filter((url) => url.includes('live-preview')), [], 'the browser loads none of it')

  // Everything the site's entry can ever load (static and dynamic imports) holds neither iframe-resizer nor the place keeping.
  const { outputs } = JSON.parse(readFileSync(join(ROOT, 'dist/client-meta.json'), 'utf8')) as {
    outputs: Record<string, { entryPoint?: string; imports?: { path: string }[]; inputs?: Record<string, unknown> }>
  }
  const app = Object.keys(outputs).find((path) => path.endsWith(assets.client.split('/').pop() ?? ''))
  const reachable = new Set<string>()
  const visit = (path: string): void => {
    if (reachable.has(path)) return
    reachable.add(path)
    for (const { path: next } of outputs[path]?.imports ?? []) visit(next)
  }
  if (app) visit(app)
  t.ok(reachable.size > 5, `the site's entry and its chunks: ${reachable.size}`)
  const inputs = [...reachable].flatMap((path) => Object.keys(outputs[path]?.inputs ?? {}))
  t.same(inputs.filter((input) => input.includes('iframe-resizer') || input.includes('live-preview')), [], 'none of it in the bundle')
})
