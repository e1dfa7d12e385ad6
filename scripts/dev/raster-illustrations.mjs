// Development tool, not part of the build: renders the SVG illustrations of the
// embedded content's assets to PNG at the widths the site's srcset offers, the
// way Craft's image transforms would. Run after changing an illustration:
//   node --import tsx scripts/dev/raster-illustrations.mjs
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { launchBrowser } from '../../test/helpers/browser.ts'
import { IMAGE_WIDTHS } from '../../shared/constants.ts'

const images = join(import.meta.dirname, '../../gateway/embedded-cms/assets')
const browser = await launchBrowser()
for (const name of readdirSync(images).filter((file) => file.endsWith('.svg'))) {
  const svg = readFileSync(join(images, name), 'utf8')
  const [, w, h] = /width="(\d+)" height="(\d+)"/.exec(svg) ?? []
  for (const width of IMAGE_WIDTHS) {
    const height = Math.round((width * Number(h)) / Number(w))
    const page = await browser.newPage({ viewport: { width, height } })
    await page.setContent(`<html><body style="margin:0">${svg.replace(`width="${w}" height="${h}"`, `width="${width}" height="${height}"`)}</body></html>`)
    await page.screenshot({ path: join(images, name.replace(/\.svg$/, `-${width}.png`)) })
    await page.close()
  }
}
await browser.close()
