import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'

/** Where the build puts its hashed stylesheet (scripts/build-steps.mjs), under this URL prefix. */
const BUILT_ASSET = /^\/assets\/styles-[a-z0-9]+\.css$/

/**
 * The text of the built stylesheet named `href` (build.json's), read once
 * when the renderer starts, for every page to carry in its head: a linked
 * stylesheet blocks the first paint for a request of its own. Undefined
 * when it is not a built stylesheet or not there (an unbuilt renderer):
 * the page links it instead. A text that could end its `<style>` element
 * early is never inlined.
 */
export function readInlineStylesheet(distDir: string, href: string): string | undefined {
  if (!BUILT_ASSET.test(href)) return undefined
  const file = join(distDir, 'client', basename(href))
  if (!existsSync(file)) return undefined
  const css = readFileSync(file, 'utf8')
  return /<\/style/i.test(css) ? undefined : css
}
