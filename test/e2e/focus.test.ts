import type { Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { hydrated, openPage } from '../helpers/browser.ts'
import { systemWithBrowser } from '../helpers/browser-system.ts'

/**
 * WCAG 1.4.11: the focus indicator needs 3:1 against what it is drawn on. Read
 * from computed styles: the ring's colours (outline and box-shadow), which of
 * them is outermost, and the background just outside the ring (the nearest
 * painted background there, every stop of a gradient counted). A card's link
 * draws its ring around the card, with its ::after.
 */
const { system, browser } = await systemWithBrowser(t)

type Rgba = [number, number, number, number]

interface FocusRing {
  label: string
  outlineStyle: string
  outlineWidth: number
  /** Outermost colour first. */
  rings: Rgba[]
  backgrounds: Rgba[]
}

const luminance = ([r, g, b]: Rgba): number => {
  const [R, G, B] = [r, g, b].map((v) => {
    const c = v / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * R + 0.7152 * G + 0.0722 * B
}
const contrast = (a: Rgba, b: Rgba): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (hi + 0.05) / (lo + 0.05)
}
const css = ([r, g, b]: Rgba): string => `rgb(${r}, ${g}, ${b})`

/**
 * Measures the focused element's ring in the page. Plain JavaScript in a string:
 * tsx would wrap named functions of an evaluated closure in a helper the page lacks.
 */
const FOCUS_RING_SOURCE = String.raw`(() => {
    const el = document.activeElement
    if (!el || el === document.body) return null
    if (el.hasAttribute('data-focus-checked')) return { repeat: true }
    el.setAttribute('data-focus-checked', '')
    const parse = (text) =>
      [...text.matchAll(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/g)].map((m) => [
        Number(m[1]),
        Number(m[2]),
        Number(m[3]),
        m[4] === undefined ? 1 : Number(m[4]),
      ])
    const over = (top, bottom) => {
      const a = top[3]
      return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat(1)
    }
    /** The painted background of an element: its colour over its ancestors', or each stop of its gradient. */
    const backgroundOf = (start) => {
      for (let node = start; node; node = node.parentElement) {
        const style = getComputedStyle(node)
        const stops = style.backgroundImage.includes('gradient') ? parse(style.backgroundImage) : []
        if (stops.length > 0) return stops
        const [colour] = parse(style.backgroundColor)
        if (colour && colour[3] > 0) {
          if (colour[3] >= 1) return [colour]
          return backgroundOf(node.parentElement).map((below) => over(colour, below))
        }
      }
      return [[255, 255, 255, 1]]
    }
    // A card's link draws its ring with its ::after, which covers the card (its offsetParent).
    const own = getComputedStyle(el)
    const cover = getComputedStyle(el, '::after')
    const onCover = own.outlineStyle === 'none' && cover.outlineStyle !== 'none' && cover.position === 'absolute'
    const style = onCover ? cover : own
    const outlineWidth = parseFloat(style.outlineWidth) || 0
    const outlineOffset = parseFloat(style.outlineOffset) || 0
    const layers = []
    if (style.outlineStyle !== 'none' && outlineWidth > 0) {
      const [colour] = parse(style.outlineColor)
      if (colour) layers.push({ colour, reach: outlineOffset + outlineWidth })
    }
    for (const shadow of style.boxShadow === 'none' ? [] : style.boxShadow.split(/,(?![^(]*\))/)) {
      if (shadow.includes('inset')) continue
      const [colour] = parse(shadow)
      const lengths = shadow.replace(/rgba?\([^)]*\)/, '').match(/-?[\d.]+px/g) ?? []
      const spread = parseFloat(lengths[3] ?? '0')
      if (colour && spread > 0) layers.push({ colour, reach: spread })
    }
    layers.sort((a, b) => b.reach - a.reach)
    const reach = layers[0]?.reach ?? 0
    const box = (onCover ? el.offsetParent ?? el : el).getBoundingClientRect()
    const gap = reach + 2
    const points = [
      [box.left - gap, box.top + box.height / 2],
      [box.right + gap, box.top + box.height / 2],
      [box.left + box.width / 2, box.top - gap],
      [box.left + box.width / 2, box.bottom + gap],
    ].filter(([x, y]) => x >= 0 && y >= 0 && x < innerWidth && y < innerHeight)
    const backgrounds = points.flatMap(([x, y]) => {
      const under = document.elementsFromPoint(x, y).find((hit) => hit !== el && !el.contains(hit))
      return backgroundOf(under ?? null)
    })
    const label = el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '') + ' "' + (el.textContent ?? '').trim().slice(0, 30) + '"'
    return { label, outlineStyle: style.outlineStyle, outlineWidth, rings: layers.map((layer) => layer.colour), backgrounds }
})()`

const focusRing = (page: Page): Promise<FocusRing | { repeat: true } | null> => page.evaluate(FOCUS_RING_SOURCE)

/**
 * Resolves once the page is still: its fonts and images loaded (either can
 * move the links around a ring), then three animation frames in a row at the
 * same scroll offset (the site scrolls smoothly, `scroll-behavior: smooth`,
 * so a focused link is carried into view over several frames). A ring read
 * while things move can find its neighbour's background under its edge. A
 * string, as FOCUS_RING_SOURCE is.
 */
const STILL_SOURCE = String.raw`(async () => {
    await document.fonts.ready
    // Lazy images load only once in view: waiting for them here could wait for ever.
    const loading = [...document.images].filter((image) => !image.complete && image.loading !== 'lazy')
    await Promise.all(loading.map((image) => new Promise((resolve) => {
      image.addEventListener('load', resolve, { once: true })
      image.addEventListener('error', resolve, { once: true })
    })))
    await new Promise((resolve) => {
      let last = window.scrollY
      let still = 0
      const frame = () => {
        if (window.scrollY === last) still++
        else { last = window.scrollY; still = 0 }
        if (still >= 3) resolve()
        else requestAnimationFrame(frame)
      }
      requestAnimationFrame(frame)
    })
})()`

const pageStill = (page: Page): Promise<void> => page.evaluate(STILL_SOURCE)

/** Tabs on through at most `limit` stops (or until focus leaves the page or comes round again) and checks each ring. */
async function checkFocusRings(t: Test, page: Page, limit: number): Promise<Set<string>> {
  const seen = new Set<string>()
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab')
    await pageStill(page)
    const ring = await focusRing(page)
    if (!ring || 'repeat' in ring) break
    seen.add(ring.label)
    const [outer, inner] = ring.rings
    if (!outer) {
      t.fail(`${ring.label}: no focus indicator`)
      continue
    }
    t.ok(ring.outlineStyle !== 'none' && ring.outlineWidth >= 2, `${ring.label}: an outline of at least 2px (survives forced colours)`)
    t.ok(inner && contrast(outer, inner) >= 3, `${ring.label}: two tones, ${css(outer)} and ${inner ? css(inner) : 'none'}, 3:1 apart`)
    for (const background of new Set(ring.backgrounds.map(css))) {
      const colour = ring.backgrounds.find((b) => css(b) === background) as Rgba
      const ratio = contrast(outer, colour)
      t.ok(ratio >= 3, `${ring.label}: outer ring ${css(outer)} on ${background} is ${ratio.toFixed(2)}:1`)
    }
  }
  return seen
}

t.test('every focus stop of the home page, header to footer, has a ring of 3:1 against its background', async (t) => {
  const { page } = await openPage(browser, { viewport: { width: 1280, height: 800 } })
  await page.goto(`${system.url}/`)
  await hydrated(page)
  const seen = await checkFocusRings(t, page, 120)
  const labels = [...seen].join('\n')
  t.match(labels, /a\.skip-link/, 'the skip link (over the header)')
  t.match(labels, /a\.site-logo/, 'a header link')
  t.match(labels, /a\.button/, 'the hero button')
  t.match(labels, /"Privacy/, 'a footer link')
  await page.context().close()
})

t.test('on a small screen the menu button and the opened menu have the same ring', async (t) => {
  const { page } = await openPage(browser, { viewport: { width: 375, height: 740 } })
  await page.goto(`${system.url}/actueel`)
  await hydrated(page)
  const before = await checkFocusRings(t, page, 3)
  t.match([...before].join('\n'), /summary\.menu-button/, 'the menu button')
  await page.keyboard.press('Enter')
  t.equal(await page.evaluate(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open), true)
  const menu = await checkFocusRings(t, page, 8)
  t.match([...menu].join('\n'), /"Contact"/, 'the links of the opened menu')
  await page.context().close()
})
