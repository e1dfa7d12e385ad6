import t from 'tap'
import { type Tab, systemWithBothEngines } from '../helpers/firefox-or-chromium.ts'

// On a phone, in Chromium and Firefox: the end of every kind of page clears
// the fixed damage bar, so the footer's last links (the registers) can be
// tapped.
const { engines } = await systemWithBothEngines(t)

const PAGE_TYPES = [
  '/',
  '/over-ons',
  '/contact',
  '/kantoren',
  '/onze-verzekeringen',
  '/onze-verzekeringen/autoverzekering',
  '/werken-bij',
  '/werken-bij/allround-schadebehandelaar',
  '/actueel',
  '/actueel/winter-en-uw-auto',
  '/onze-dienstverlening',
  '/onze-dienstverlening/schade-melden',
  '/bestaat-niet',
]

/** Scrolls the window at once to its end and waits until it is there. */
async function scrollToEnd(tab: Tab): Promise<void> {
  const end = await tab.run(() => {
    const bottom = document.documentElement.scrollHeight - window.innerHeight
    window.scrollTo({ top: bottom, left: 0, behavior: 'instant' })
    return bottom
  }, null)
  await tab.until((bottom) => Math.abs(window.scrollY - bottom) < 1, end)
}

/** 'clear' when the footer's last link is in the window, off the damage bar, and a tap at its middle reaches it; else what is wrong. */
const lastFooterLink = (): string => {
  const links = document.querySelectorAll<HTMLAnchorElement>('.site-footer a')
  const link = links[links.length - 1]
  const bar = document.querySelector('.damage-action')
  if (!link || !bar) return 'no footer link, or no damage bar'
  const box = link.getBoundingClientRect()
  const covers = bar.getBoundingClientRect()
  const where = `"${link.textContent}" at ${Math.round(box.top)}–${Math.round(box.bottom)}, the bar at ${Math.round(covers.top)}–${Math.round(covers.bottom)} of ${window.innerHeight}`
  if (box.bottom > window.innerHeight || (box.top < covers.bottom && covers.top < box.bottom && box.left < covers.right && covers.left < box.right)) return where
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)
  return hit && link.contains(hit) ? 'clear' : `${where}: a tap reaches ${hit?.className || hit?.tagName}`
}

for (const engine of engines) {
  t.test(`${engine.name}, 390 px: scrolled to the end of every kind of page, the footer's last link is clear of the damage bar and a tap reaches it`, async (t) => {
    const tab = await engine.open({ width: 390, height: 844 })
    t.teardown(() => tab.close())
    for (const path of PAGE_TYPES) {
      await tab.visit(path)
      await scrollToEnd(tab)
      t.equal(await tab.run(lastFooterLink, null), 'clear', path)
    }
  })
}
