import type { Page } from 'playwright-core'

// The conditions real visitors bring to the site (issue 37): a larger default
// text size, the WCAG 1.4.12 text spacing, a small or zoomed screen. Used by
// the browser tests in test/e2e/ and by scripts/device-conditions.mjs.

/** The styles of the WCAG 1.4.12 text-spacing bookmarklet (Steve Faulkner's), as a user style sheet injects them. */
export const TEXT_SPACING_CSS = '* { line-height: 1.5 !important; letter-spacing: 0.12em !important; word-spacing: 0.16em !important; } p { margin-bottom: 2em !important; }'

/** The browser's default font size, as a visitor sets it (16 px is the default; 32 px is 200% text): rem and media queries in em follow it. */
export async function setDefaultFontSize(page: Page, px: number): Promise<void> {
  const session = await page.context().newCDPSession(page)
  await session.send('Page.setFontSizes', { fontSizes: { standard: px, fixed: Math.round(px * 0.8125) } })
}

export interface BarFit {
  scrollWidth: number
  innerWidth: number
  innerHeight: number
  /** The damage bar's call link: where it is, and whether its whole text is inside it (not clipped). */
  call: { left: number; right: number; top: number; bottom: number; clipped: boolean } | null
  /** The brand and the menu button overlap. */
  headerOverlap: boolean
  /** The damage bar's height, and the space the page keeps for it (scroll-padding-bottom), in CSS px. */
  bar: { height: number; space: number }
}

/** Where the damage bar's number and the header's parts are, in the window. */
export const barFit = (page: Page): Promise<BarFit> =>
  page.evaluate(() => {
    const link = document.querySelector<HTMLAnchorElement>('.damage-action a[href^="tel:"]')
    const box = link?.getBoundingClientRect()
    const brand = document.querySelector('.site-logo__name')?.getBoundingClientRect()
    const button = document.querySelector('.menu-button')?.getBoundingClientRect()
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      innerHeight: window.innerHeight,
      call: link && box ? { left: box.left, right: box.right, top: box.top, bottom: box.bottom, clipped: link.scrollWidth > link.clientWidth + 1 } : null,
      bar: { height: document.querySelector('.damage-action')?.getBoundingClientRect().height ?? 0, space: Number.parseFloat(getComputedStyle(document.documentElement).scrollPaddingBottom) || 0 },
      headerOverlap: !!brand && !!button && brand.width > 0 && button.width > 0 && brand.left < button.right && button.left < brand.right && brand.top < button.bottom && button.top < brand.bottom,
    }
  })

/** What is wrong with a BarFit: the page scrolls sideways, the number is cut or off screen, the header's parts overlap. */
export function barProblems(fit: BarFit): string[] {
  const problems: string[] = []
  if (fit.scrollWidth > fit.innerWidth) problems.push(`the page is ${fit.scrollWidth} px wide in a ${fit.innerWidth} px window`)
  if (!fit.call) problems.push('no damage number in the bar')
  else {
    const { left, right, top, bottom, clipped } = fit.call
    if (left < 0 || right > fit.innerWidth + 0.5 || top < 0 || bottom > fit.innerHeight + 0.5) problems.push(`the damage number is at ${Math.round(left)}–${Math.round(right)} × ${Math.round(top)}–${Math.round(bottom)}, off a ${fit.innerWidth}×${fit.innerHeight} window`)
    if (clipped) problems.push('the damage number is cut off')
  }
  if (fit.headerOverlap) problems.push('the brand is drawn over the menu button')
  if (fit.bar.space > 0 && fit.bar.space < fit.bar.height) problems.push(`the page keeps ${fit.bar.space} px for a bar ${fit.bar.height} px high`)
  return problems
}

/** The fixed damage bar's top in the window (the window's height when it is not fixed at the bottom). */
export const fixedBarTop = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const bar = document.querySelector('.damage-action')
    if (!bar || getComputedStyle(bar).position !== 'fixed') return window.innerHeight
    return bar.getBoundingClientRect().top
  })

/**
 * Each link of the open menu, brought to the middle as a finger scrolls: by
 * the nearest element around it that scrolls (the open menu's header), else
 * by the window unless the page's overflow is hidden (an element with its
 * overflow hidden does not scroll for a finger, so it is left alone): the
 * ones that cannot be brought fully on screen, or that something else covers
 * there (the fixed bar).
 */
export const unreachableMenuLinks = (page: Page): Promise<string[]> =>
  page.evaluate(() => {
    const out: string[] = []
    for (const link of document.querySelectorAll<HTMLAnchorElement>('#hoofdmenu a')) {
      const at = link.getBoundingClientRect()
      let scroller = link.parentElement
      while (scroller && !(/auto|scroll/.test(getComputedStyle(scroller).overflowY) && scroller.scrollHeight > scroller.clientHeight)) scroller = scroller.parentElement
      if (scroller) scroller.scrollTop += at.top - scroller.getBoundingClientRect().top - (scroller.clientHeight - at.height) / 2
      else if (getComputedStyle(document.documentElement).overflowY !== 'hidden') window.scrollTo({ top: window.scrollY + at.top - (window.innerHeight - at.height) / 2, behavior: 'instant' })
      const box = link.getBoundingClientRect()
      const name = link.textContent ?? ''
      if (box.width === 0 || box.top < -0.5 || box.bottom > window.innerHeight + 0.5) {
        out.push(`${name}: at ${Math.round(box.top)}–${Math.round(box.bottom)} of ${window.innerHeight}`)
        continue
      }
      const hit = document.elementFromPoint(box.left + Math.min(box.width / 2, 20), box.top + box.height / 2)
      if (!hit || !link.contains(hit)) out.push(`${name}: covered by ${hit?.closest('[class]')?.className ?? 'nothing'}`)
    }
    return out
  })

/** The focused element when something fixed or sticky covers part of it, or it is off screen: its description, else null. */
export const focusHidden = (page: Page): Promise<string | null> =>
  page.evaluate(() => {
    const element = document.activeElement
    if (!element || element === document.body) return null
    const box = element.getBoundingClientRect()
    if (box.width === 0 && box.height === 0) return null
    const name = `${element.tagName.toLowerCase()} "${(element.textContent ?? '').trim().slice(0, 40)}"`
    if (box.bottom <= 0 || box.top >= window.innerHeight) return `${name}: off screen at ${Math.round(box.top)}`
    for (const bar of document.querySelectorAll<HTMLElement>('.damage-action, .site-header')) {
      const position = getComputedStyle(bar).position
      if (position !== 'fixed' && position !== 'sticky') continue
      if (bar.contains(element)) continue
      const covers = bar.getBoundingClientRect()
      if (covers.height > 0 && box.top < covers.bottom && covers.top < box.bottom && box.left < covers.right && covers.left < box.right) return `${name}: under the bar at ${Math.round(box.top)}–${Math.round(box.bottom)}`
    }
    return null
  })
