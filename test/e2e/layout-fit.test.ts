import t from 'tap'
import type { Page } from 'playwright-core'
import { hydrated } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'
import { sitemapLocs } from '../helpers/sitemap.ts'

// Every page of the sitemap fits the screen, from the smallest phone to a
// desktop: nothing scrolls sideways (long Dutch compounds must break) and no
// image is shown wider than its file has pixels (`sizes` must describe the
// layout, and a file wide enough must exist). One browser and one page per
// device pixel ratio, navigated by URL, to keep the run short.
const { system, browser } = await systemWithBrowser(t)

const WIDTHS = [320, 390, 768, 1280] as const
const HEIGHT = 800
/** Rounding of fractional layout widths. */
const TOLERANCE_PX = 1

// The sitemap's addresses are on SITE_URL; the pages are asked of this gateway.
const paths = (await sitemapLocs(system.url)).map((loc) => {
  const url = new URL(loc)
  return `${url.pathname}${url.search}`
})

interface ImageFit {
  src: string
  /** CSS pixels the layout gives the image. */
  shown: number
  /** Pixels of the file the browser chose (0: it did not load). */
  file: number
}

/**
 * Loads every image of the page (lazy ones too, each at what its srcset and
 * sizes choose for this viewport) and measures it. `naturalWidth` of an image
 * chosen from a srcset is the file's width over its density, so the file's
 * own width comes from loading it again without srcset (from the cache).
 */
async function imageFits(page: Page): Promise<ImageFit[]> {
  return page.evaluate(async () => {
    const images = [...document.images]
    for (const image of images) image.loading = 'eager'
    await Promise.all(images.map((image) => image.decode().catch(() => undefined)))
    return Promise.all(
      images.map(async (image) => {
        const file = new Image()
        file.src = image.currentSrc
        await file.decode().catch(() => undefined)
        return { src: image.currentSrc, shown: image.getBoundingClientRect().width, file: file.naturalWidth }
      }),
    )
  })
}

const sideways = (page: Page): Promise<{ scrollWidth: number; innerWidth: number }> =>
  page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }))

t.test('the sitemap lists the pages to check', async (t) => {
  t.ok(paths.length > 20, `${paths.length} pages`)
  t.ok(paths.some((path) => /^\/(topical|actueel)\/.+/.test(path)), 'articles (with images) among them')
})

/** Paths with at least one image: the only ones the image check can fail on. */
const withImages = new Set<string>()

t.test('no page scrolls sideways, at any width', async (t) => {
  const context = await browser.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  const tooWide: string[] = []
  for (const path of paths) {
    // Layout follows the window as it is resized: one load per page, then each width.
    await page.setViewportSize({ width: WIDTHS[0], height: HEIGHT })
    const response = await page.goto(`${system.url}${path}`)
    if (response?.status() !== 200) tooWide.push(`${path}: status ${response?.status()}`)
    await hydrated(page)
    if (await page.evaluate(() => document.images.length > 0)) withImages.add(path)
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: HEIGHT })
      const { scrollWidth, innerWidth } = await sideways(page)
      if (innerWidth !== width) tooWide.push(`${path}: window ${innerWidth} px, not ${width}`)
      if (scrollWidth > innerWidth) tooWide.push(`${path} at ${width} px: scrollWidth ${scrollWidth}`)
    }
  }
  t.same(tooWide, [], `${paths.length} pages at ${WIDTHS.join(', ')} px: none is wider than the window`)
})

/** What breaks the page's rows at this width: a card grid with an empty place in a row, opening hours wrapped inside a time, the last crumb alone on a line. */
const brokenRows = (page: Page): Promise<string[]> =>
  page.evaluate(() => {
    const problems: string[] = []
    for (const list of document.querySelectorAll<HTMLElement>('.cards, .offices')) {
      const box = list.getBoundingClientRect()
      const rows = new Map<number, { left: number; right: number }>()
      for (const item of list.children) {
        const rect = item.getBoundingClientRect()
        const row = rows.get(Math.round(rect.top)) ?? { left: Infinity, right: -Infinity }
        rows.set(Math.round(rect.top), { left: Math.min(row.left, rect.left), right: Math.max(row.right, rect.right) })
      }
      for (const [top, row] of rows) if (row.left - box.left > 1 || box.right - row.right > 1) problems.push(`.${list.className} row at ${top}: ${row.left}–${row.right} of ${box.left}–${box.right}`)
    }
    for (const hours of document.querySelectorAll('.opening-hours dd')) {
      const range = document.createRange()
      range.selectNodeContents(hours)
      const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)))
      if (lines.size > 1) problems.push(`opening hours "${hours.textContent}" on ${lines.size} lines`)
    }
    const crumbs = [...document.querySelectorAll('.breadcrumbs li')]
    const [previous, last] = crumbs.slice(-2)
    if (previous && last) {
      const ends = [...previous.getClientRects()].at(-1)
      const starts = last.getClientRects()[0]
      if (ends && starts && Math.abs(ends.top - starts.top) > 1) problems.push(`the last crumb "${last.textContent}" starts a line of its own`)
    }
    return problems
  })

t.test('grids fill their rows, opening hours never wrap inside a time, the last crumb is never alone on a line: at every width', async (t) => {
  const context = await browser.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  const broken: string[] = []
  let grids = 0
  for (const path of paths) {
    await page.setViewportSize({ width: 320, height: HEIGHT })
    await page.goto(`${system.url}${path}`)
    await hydrated(page)
    grids += await page.locator('.cards, .offices').count()
    for (const width of [...WIDTHS, 1366]) {
      await page.setViewportSize({ width, height: HEIGHT })
      for (const problem of await brokenRows(page)) broken.push(`${path} at ${width} px: ${problem}`)
    }
  }
  t.ok(grids > 5, `${grids} grids measured`)
  t.same(broken, [], `${paths.length} pages`)
})

for (const dpr of [1, 2]) {
  t.test(`at device pixel ratio ${dpr}: no image is shown wider than its file`, async (t) => {
    // The images are in the server's HTML and hydration keeps them: without the client's script each load is quicker.
    const context = await browser.newContext({ deviceScaleFactor: dpr, javaScriptEnabled: false })
    t.teardown(() => context.close())
    const page = await context.newPage()
    const checked = paths.filter((path) => withImages.has(path))
    t.ok(checked.length > 5, `${checked.length} pages with images`)
    for (const width of WIDTHS) {
      // A page loaded at this width, so the browser chooses each file for it.
      await page.setViewportSize({ width, height: HEIGHT })
      const upscaled: string[] = []
      let images = 0
      for (const path of checked) {
        await page.goto(`${system.url}${path}`)
        for (const image of await imageFits(page)) {
          images++
          if (image.shown * dpr > image.file + TOLERANCE_PX) upscaled.push(`${path}: ${image.src} shown ${image.shown} px × ${dpr}, file ${image.file} px`)
        }
      }
      t.ok(images >= checked.length, `${width} px: ${images} images measured`)
      t.same(upscaled, [], `${width} px: every image has at least ${dpr} file pixel(s) per CSS pixel`)
    }
  })
}

t.test('on a phone the header is one row: the brand, and the menu button beside it', async (t) => {
  const context = await browser.newContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  for (const width of [320, 390]) {
    await page.setViewportSize({ width, height: HEIGHT })
    await page.goto(`${system.url}/`)
    const brand = await page.locator('.site-header .site-logo').boundingBox()
    const button = await page.locator('.site-header .menu-button').boundingBox()
    if (!brand || !button) {
      t.fail(`${width} px: brand and menu button are shown`)
      continue
    }
    t.ok(brand.y < button.y + button.height && button.y < brand.y + brand.height, `${width} px: their rows overlap (brand ${brand.y}–${brand.y + brand.height}, button ${button.y}–${button.y + button.height})`)
    t.ok(brand.x + brand.width <= button.x, `${width} px: the button is right of the brand`)
    t.ok(button.x + button.width <= width, `${width} px: the button is inside the window`)
  }
})
