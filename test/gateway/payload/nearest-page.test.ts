import t from 'tap'
import type { ContentService, RunContext } from '../../../gateway/craft/content-service.ts'
import { MAX_COMPARED_ADDRESSES, MAX_COMPARED_PATH, NearestPages, distanceWithin, editsAllowed } from '../../../gateway/payload/nearest-page.ts'
import { SitemapBuilder } from '../../../gateway/payload/sitemap.ts'
import { DEFAULT_SITE_HANDLE } from '../../../shared/constants.ts'
import { createRouteTable } from '../../../shared/routes.ts'
import { CHANNELS } from '../../../shared/sections.ts'

const routes = createRouteTable(DEFAULT_SITE_HANDLE)
const live: RunContext = { token: undefined, preview: false }

/** Levenshtein's distance, the whole table: what the banded one must agree with. */
function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min((prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1), (prev[j] as number) + 1, (cur[j - 1] as number) + 1)
    prev = cur
  }
  return prev[b.length] as number
}

/** A content service whose cache holds these articles' sitemap answer, and nothing else. */
function contentWith(slugs: readonly string[]): ContentService {
  const body = { data: { entries: slugs.map((slug) => ({ sectionHandle: CHANNELS.topical.section, slug, dateUpdated: null })) } }
  return {
    cachedNamed: (_name: string, variables: { section?: string[] }) => (variables.section?.[0] === CHANNELS.topical.section ? { status: 200, body } : undefined),
  } as unknown as ContentService
}

const nearestWith = (slugs: readonly string[]) => new NearestPages(routes, contentWith(slugs), new SitemapBuilder(routes, 'https://www.example.nl', Number.MAX_SAFE_INTEGER))

t.test('the banded distance agrees with the whole table up to its bound', async (t) => {
  let seed = 49
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const word = () => Array.from({ length: Math.floor(random() * 12) }, () => 'abcd-'[Math.floor(random() * 5)]).join('')
  for (let n = 0; n < 2000; n++) {
    const a = word()
    const b = random() < 0.5 ? word() : a.slice(0, Math.floor(random() * a.length)) + word().slice(0, 2) + a.slice(Math.floor(random() * a.length))
    const max = 1 + Math.floor(random() * 3)
    const expected = Math.min(levenshtein(a, b), max + 1)
    if (distanceWithin(a, b, max) !== expected) t.fail(`${a} / ${b} within ${max}: ${distanceWithin(a, b, max)}, not ${expected}`)
  }
  t.equal(distanceWithin('kantoor', 'kantoren', 3), 3)
  t.equal(distanceWithin('x'.repeat(MAX_COMPARED_PATH + 1), 'x'.repeat(MAX_COMPARED_PATH + 1), 3), 4, 'past the longest path compared: no distance')
  t.same([1, 4, 8, 12, 40].map(editsAllowed), [1, 1, 2, 3, 3])
})

t.test('the nearest address: of the route table, of the cached sitemap, by its last segment', async (t) => {
  const nearest = nearestWith(['premies-2027-uitgelegd', 'ons-nieuwe-kantoor'])
  t.equal(nearest.suggest('/kantorn', live), '/kantoren')
  t.equal(nearest.suggest('/Over-Onz', live), '/over-ons', 'in any case')
  t.equal(nearest.suggest('/actueel/premies-2027-uitgeleg', live), '/actueel/premies-2027-uitgelegd')
  t.equal(nearest.suggest('/premies-2027-uitgelegd', live), '/actueel/premies-2027-uitgelegd', 'a path typed without its section')
  t.equal(nearest.suggest('/qqqqq', live), null)
  t.equal(nearest.suggest('/x', live), null, 'never the home page, which every 404 links to')
  t.equal(nearest.suggest('/actueel/premies-2027-uitgeleg', { ...live, preview: true }), '/actueel/premies-2027-uitgelegd', 'a preview gets the addresses the live cache last gave')
})

t.test('a guess costs a bounded number of comparisons, and a long one none', async (t) => {
  const slugs = Array.from({ length: 5000 }, (_, i) => `artikel-${String(i).padStart(6, '0')}`)
  const nearest = nearestWith(slugs)
  t.equal(nearest.suggest('/actueel/artikel-00004x', live), '/actueel/artikel-000040')
  t.ok(nearest.compared <= MAX_COMPARED_ADDRESSES, `${nearest.compared} compared of 5,000 addresses of its length`)
  t.equal(nearest.suggest(`/${'z'.repeat(1000)}`, live), null)
  t.equal(nearest.compared, 0, 'a path past the longest compared is compared with nothing')
  t.equal(nearest.suggest(`/${'z'.repeat(100)}`, live), null)
  t.equal(nearest.compared, 0, 'nor one whose length no address has')
})

t.test('a path in capitals is nearest to its own lower case', async (t) => {
  t.equal(nearestWith([]).suggest('/Kantoren', live), '/kantoren')
  t.equal(nearestWith([]).suggest('/kantoren', live), null, 'but a page is not its own suggestion')
})
