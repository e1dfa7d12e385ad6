import t from 'tap'
import { type Tab, systemWithBothEngines } from '../helpers/firefox-or-chromium.ts'

// On a phone, in Chromium and Firefox: the end of every kind of page clears
// the fixed damage bar, so the footer's last links (the registers) can be
// tapped; the open menu gives the app root its class and the page under it
// does not scroll, and at 400% zoom (320×256) the menu scrolls within itself
// so that every one of its links is reached.
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

/** Whether the app root has the open menu's class, and whether the window's scroller (the root's overflow) is hidden, with something to scroll. */
const menuState = () => ({
  open: document.querySelector<HTMLDetailsElement>('details.site-menu')?.open === true,
  rootClass: document.getElementById('app')?.classList.contains('app--menu-open') === true,
  pageScrolls: getComputedStyle(document.documentElement).overflowY !== 'hidden' && document.documentElement.scrollHeight > window.innerHeight,
})

/**
 * Each link of the open menu, brought to the middle of the menu's own
 * scroller as a finger would (the nearest element around it that scrolls,
 * the window left where it is): the ones not then fully in the window, or
 * that a tap at their middle does not reach. With the last one's middle.
 */
const menuLinksInReach = () => {
  const out: string[] = []
  const startY = window.scrollY
  let last = { x: 0, y: 0, href: '' }
  for (const link of document.querySelectorAll<HTMLAnchorElement>('#hoofdmenu a')) {
    let scroller = link.parentElement
    while (scroller && !(/auto|scroll/.test(getComputedStyle(scroller).overflowY) && scroller.scrollHeight > scroller.clientHeight)) scroller = scroller.parentElement
    const at = link.getBoundingClientRect()
    if (scroller) scroller.scrollTop += at.top - scroller.getBoundingClientRect().top - (scroller.clientHeight - at.height) / 2
    const box = link.getBoundingClientRect()
    const name = link.textContent ?? ''
    if (box.height === 0 || box.top < -0.5 || box.bottom > window.innerHeight + 0.5) out.push(`${name}: at ${Math.round(box.top)}–${Math.round(box.bottom)} of ${window.innerHeight}${scroller ? '' : ', and nothing around it scrolls'}`)
    else {
      const hit = document.elementFromPoint(box.left + Math.min(box.width / 2, 20), box.top + box.height / 2)
      if (!hit || !link.contains(hit)) out.push(`${name}: covered by ${hit?.className}`)
    }
    if (link.getAttribute('href')?.startsWith('/')) last = { x: box.left + Math.min(box.width / 2, 20), y: box.top + box.height / 2, href: link.getAttribute('href') ?? '' }
  }
  return { out, windowMoved: window.scrollY !== startY, last }
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

  t.test(`${engine.name}, 390 px: the open menu gives the app root its class and the page under it does not scroll; closed, both are undone`, async (t) => {
    const tab = await engine.open({ width: 390, height: 844 })
    t.teardown(() => tab.close())
    await tab.visit('/over-ons')
    t.same(await tab.run(menuState, null), { open: false, rootClass: false, pageScrolls: true }, 'closed: the page scrolls')
    await tab.click('.menu-button')
    // The class follows the details' toggle event, which the browser fires in a task after the attribute changed.
    await tab.until(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open === true && document.getElementById('app')?.classList.contains('app--menu-open') === true, null)
    t.same(await tab.run(menuState, null), { open: true, rootClass: true, pageScrolls: false }, 'open: the class, and the page does not scroll')
    await tab.click('.menu-button')
    await tab.until(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open === false && document.getElementById('app')?.classList.contains('app--menu-open') === false, null)
    t.same(await tab.run(menuState, null), { open: false, rootClass: false, pageScrolls: true }, 'closed again')
  })

  t.test(`${engine.name}, 320×256 (400% zoom): the open menu scrolls within itself; every link is reached, and a tap on the last one follows it`, async (t) => {
    const tab = await engine.open({ width: 320, height: 256 })
    t.teardown(() => tab.close())
    await tab.visit('/')
    await tab.click('.menu-button')
    await tab.until(() => document.querySelector<HTMLDetailsElement>('details.site-menu')?.open === true, null)
    const { out, windowMoved, last } = await tab.run(menuLinksInReach, null)
    if (!t.same(out, [], 'each link reached within the menu')) return
    t.notOk(windowMoved, 'the page under it stayed where it was')
    t.ok(last.href, `the last link of the menu's pages: ${last.href}`)
    await tab.clickAt(last.x, last.y)
    await tab.until((href) => location.pathname === href, last.href)
    await tab.until(() => !document.getElementById('app')?.classList.contains('app--menu-open'), null)
    t.pass('followed; the menu closed and its class went with it')
  })
}
