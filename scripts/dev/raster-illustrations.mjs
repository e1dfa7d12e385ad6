// Development tool, not part of the build: renders the SVG illustrations of the
// embedded content's assets at the widths the site's srcset offers, in every
// format the embedded volume holds (EMBEDDED_TRANSFORM_FORMATS), the way
// Craft's image transforms would. Chromium does both: the PNG is a screenshot,
// the WebP comes from the canvas's own encoder, so no image library is needed.
// Run after changing an illustration or the widths:
//   node --import tsx scripts/dev/raster-illustrations.mjs
// The files it names are the ones site-topical.json lists under `transforms`.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { launchBrowser } from '../../test/helpers/browser.ts'
import { IMAGE_WIDTHS } from '../../shared/constants.ts'
import { EMBEDDED_TRANSFORM_FORMATS, transformFileName } from '../../gateway/embedded-cms/transforms.ts'

/** WebP quality for the canvas encoder: flat illustrations stay crisp well below 1. */
const WEBP_QUALITY = 0.9

const images = join(import.meta.dirname, '../../gateway/embedded-cms/assets')
const browser = await launchBrowser()
for (const name of readdirSync(images).filter((file) => file.endsWith('.svg'))) {
  const svg = readFileSync(join(images, name), 'utf8')
  const [, w, h] = /width="(\d+)" height="(\d+)"/.exec(svg) ?? []
  for (const width of IMAGE_WIDTHS) {
    const height = Math.round((width * Number(h)) / Number(w))
    const page = await browser.newPage({ viewport: { width, height } })
    await page.setContent(`<html><body style="margin:0">${svg.replace(`width="${w}" height="${h}"`, `width="${width}" height="${height}"`)}</body></html>`)
    const png = await page.screenshot()
    for (const format of EMBEDDED_TRANSFORM_FORMATS) {
      const file = join(images, transformFileName(name, width, format))
      if (format === 'png') {
        writeFileSync(file, png)
        continue
      }
      // The same pixels as the PNG, encoded by the browser.
      const dataUrl = await page.evaluate(
        async ({ source, type, quality }) => {
          const image = new Image()
          image.src = source
          await image.decode()
          const canvas = document.createElement('canvas')
          canvas.width = image.naturalWidth
          canvas.height = image.naturalHeight
          canvas.getContext('2d')?.drawImage(image, 0, 0)
          return canvas.toDataURL(type, quality)
        },
        { source: `data:image/png;base64,${png.toString('base64')}`, type: `image/${format}`, quality: WEBP_QUALITY },
      )
      if (!dataUrl.startsWith(`data:image/${format};`)) throw new Error(`this Chromium cannot encode ${format}`)
      writeFileSync(file, Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64'))
    }
    await page.close()
  }
}
await browser.close()
