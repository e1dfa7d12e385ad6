import t from 'tap'
import { request } from 'undici'
import { DEFAULT_SITE_HANDLE } from '../shared/constants.ts'
import { createRouteTable } from '../shared/routes.ts'
import { decodeEntities } from './helpers/html.ts'
import { startSystem } from './helpers/system.ts'
import { sitemapLocs } from './helpers/sitemap.ts'

/**
 * The site read as a visitor reads it, over real HTTP against both services:
 * every page of the sitemap, and the pages a visitor reaches by following
 * links from the home page. One pass collects the pages, the tests below
 * each check one promise the content makes.
 */

const SITE = 'https://www.havenborg.example'
const system = await startSystem({ SITE_URL: SITE })
t.teardown(() => system.close())
const routes = createRouteTable(DEFAULT_SITE_HANDLE)

interface Page {
  path: string
  html: string
  title: string
  /** Internal links: path (no query or fragment), what to crawl (a list's page number kept) and accessible text. */
  links: { path: string; target: string; text: string }[]
  /** Every href, as written. */
  hrefs: string[]
  footer: string
  main: string
}

const textOf = (html: string): string => decodeEntities(html.replace(/<[^>]+>/g, ' ')).replace(/[\s\u00a0]+/g, ' ').trim()

async function read(path: string): Promise<Page | undefined> {
  const response = await request(`${system.url}${path}`)
  const html = await response.body.text()
  if (response.statusCode !== 200) return undefined
  const body = html.replace(/^[\s\S]*?<body[^>]*>/, '').replace(/<script[\s\S]*?<\/script>/g, ' ')
  const links: Page['links'] = []
  const hrefs: string[] = []
  for (const match of body.matchAll(/<a\s[^>]*?href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/g)) {
    const href = decodeEntities(match[1] ?? '')
    hrefs.push(href)
    if (!href.startsWith('/') || href.startsWith('//')) continue
    const url = new URL(href, SITE)
    const page = url.searchParams.get('pagina')
    links.push({ path: url.pathname, target: page ? `${url.pathname}?pagina=${page}` : url.pathname, text: textOf(match[2] ?? '') })
  }
  return {
    path,
    html,
    title: textOf(/<title>([\s\S]*?)<\/title>/.exec(html)?.[1] ?? ''),
    links,
    hrefs,
    footer: /<footer[\s\S]*<\/footer>/.exec(body)?.[0] ?? '',
    main: /<main[\s\S]*<\/main>/.exec(body)?.[0] ?? '',
  }
}

// /sitemap.xml is an index of one child per section: every page address of its children.
const sitemap = (await sitemapLocs(system.url)).map((loc) => new URL(loc).pathname)

// Crawl from the home page, following every internal link (bounded: the site has some fifty pages).
const pages = new Map<string, Page>()
const queue = ['/']
const seen = new Set(queue)
while (queue.length > 0 && pages.size < 300) {
  const target = queue.shift() as string
  const page = await read(target)
  if (!page) continue
  pages.set(target, page)
  for (const link of page.links) {
    if (seen.has(link.target) || /\.(xml|txt|css|js|png|jpe?g|webp|avif|svg)$/.test(link.path) || link.path.startsWith('/cms/')) continue
    seen.add(link.target)
    queue.push(link.target)
  }
}
const reached = new Set([...pages.keys()].map((target) => target.replace(/\?.*$/, '')))
for (const path of sitemap) if (!pages.has(path)) {
  const page = await read(path)
  if (page) pages.set(path, page)
}
const sitemapPages = sitemap.map((path) => pages.get(path)).filter((page): page is Page => page !== undefined)

t.test('every sitemap page answers and is reached by links from the home page', async (t) => {
  t.ok(sitemap.length > 30, `${sitemap.length} pages in the sitemap`)
  t.same(sitemap.filter((path) => !pages.has(path)), [], 'every sitemap page answers 200')
  t.same(sitemap.filter((path) => !reached.has(path)), [], 'no sitemap page is an orphan')
  t.same(sitemap.filter((path) => !routes.isCanonical(path)), [], 'the sitemap lists no alias')
  t.equal(new Set(sitemap).size, sitemap.length, 'the sitemap lists every page once')
})

t.test('no two pages share a title, and no link text goes to two places on one page', async (t) => {
  const byTitle = new Map<string, string[]>()
  for (const page of sitemapPages) byTitle.set(page.title, [...(byTitle.get(page.title) ?? []), page.path])
  t.same([...byTitle].filter(([, paths]) => paths.length > 1), [], 'every title once')
  for (const page of sitemapPages) {
    const targets = new Map<string, Set<string>>()
    for (const link of page.links) if (link.text) targets.set(link.text.toLowerCase(), (targets.get(link.text.toLowerCase()) ?? new Set()).add(link.path))
    t.same([...targets].filter(([, paths]) => paths.size > 1).map(([text, paths]) => `${text}: ${[...paths].join(', ')}`), [], `${page.path}: one destination per link text`)
  }
})

t.test('links use the Dutch addresses, not the English aliases of the route table', async (t) => {
  for (const page of pages.values()) {
    const aliases = page.links.filter((link) => routes.match(link.path).kind === 'route' && !routes.isCanonical(link.path)).map((link) => link.path)
    t.same(aliases, [], `${page.path}: every internal link is to a canonical address`)
  }
})

/** The rows of the footer's opening hours: `Maandag 08:30 – 17:00`. */
const footerHours = (page: Page): string[] =>
  [...(/<section aria-labelledby="footer-hours">([\s\S]*?)<\/section>/.exec(page.footer)?.[1] ?? '').matchAll(/<dt>([\s\S]*?)<\/dt>\s*<dd>([\s\S]*?)<\/dd>/g)].map(
    (match) => `${textOf(match[1] ?? '')} ${textOf(match[2] ?? '')}`,
  )
const tels = (html: string): string[] => [...html.matchAll(/href="tel:([^"]*)"/g)].map((match) => match[1] ?? '')
const registration = (page: Page): string => textOf(/<div class="container site-footer__registration">([\s\S]*?)<\/div>/.exec(page.footer)?.[1] ?? '')

t.test('hours and numbers read the same on every page', async (t) => {
  const home = pages.get('/') as Page
  const offices = pages.get('/kantoren') as Page
  const hours = footerHours(home)
  t.equal(hours.length, 7, 'the footer gives the hours of every day of the week')
  const weekday = hours.find((row) => row.startsWith('Maandag'))?.slice('Maandag '.length)
  // The office's numbers, its offices', and the emergency number ("Bel 112" on the damage page is a tap to call).
  const known = new Set([...tels(home.footer), ...tels(offices.main), '112'])
  const afm = /AFM-vergunning (\d{8})/.exec(registration(home))?.[1]
  const kifid = /Kifid-aansluitnummer (\d{3}\.\d{6})/.exec(registration(home))?.[1]
  const kvk = /KvK (\d{8})/.exec(registration(home))?.[1]
  t.ok(afm && kifid && kvk, 'the footer gives the AFM, Kifid and KvK numbers')
  for (const page of sitemapPages) {
    t.same(footerHours(page), hours, `${page.path}: the footer's hours`)
    t.equal(registration(page), registration(home), `${page.path}: the footer's registration`)
    t.same(tels(page.html).filter((tel) => !known.has(tel)), [], `${page.path}: every number is the office's or one of its offices'`)
    const text = textOf(page.main)
    // "op werkdagen tussen 08:30 en 17:00": the footer must say the same, and no weekend hours.
    for (const match of text.matchAll(/werkdagen (?:van|tussen) (\d\d[:.]\d\d) (?:en|tot) (\d\d[:.]\d\d)/g)) {
      t.equal(weekday, `${match[1]?.replace('.', ':')} – ${match[2]?.replace('.', ':')}`, `${page.path}: "${match[0]}" agrees with the footer`)
      t.same(
        hours.filter((row) => /^(Zaterdag|Zondag) /.test(row) && !row.endsWith('Gesloten')),
        [],
        `${page.path}: "${match[0]}" and the footer has no weekend hours`,
      )
    }
    // "Bereikbaar ma t/m vr 08:30 – 17:00" (the insurances' call button): the footer's hours again.
    for (const match of text.matchAll(/(?:maandag t\/m vrijdag|ma t\/m vr) (\d\d:\d\d) – (\d\d:\d\d)/g)) {
      t.equal(weekday, `${match[1]} – ${match[2]}`, `${page.path}: "${match[0]}" agrees with the footer`)
    }
    for (const match of text.matchAll(/\b300\.\d{6}\b/g)) t.equal(match[0], kifid, `${page.path}: Kifid number ${match[0]}`)
    for (const match of text.matchAll(/AFM[^0-9]{0,40}?(\d{8})\b/g)) t.equal(match[1], afm, `${page.path}: AFM number ${match[1]}`)
    for (const match of text.matchAll(/KvK[^0-9]{0,20}?(\d{8})\b/g)) t.equal(match[1], kvk, `${page.path}: KvK number ${match[1]}`)
  }
})

/** The disclosures a Wft intermediary gives every visitor, a click away. */
const DISCLOSURES = [
  '/privacy',
  '/onze-dienstverlening/dienstverleningsdocument',
  '/onze-dienstverlening/beloningsbeleid',
  '/onze-dienstverlening/conflicterende-situatie',
  '/onze-dienstverlening/compliment-tip-of-klacht',
  '/onze-dienstverlening',
]
const REGISTERS = [/^https:\/\/www\.afm\.nl\/.*registers.*\d{8}/, /^https:\/\/www\.kifid\.nl\//, /^https:\/\/www\.kvk\.nl\/.*\d{8}/]

t.test('every page\'s footer links the disclosures, the privacy statement and the registers', async (t) => {
  for (const page of sitemapPages) {
    const footerLinks = [...page.footer.matchAll(/href="([^"]*)"/g)].map((match) => decodeEntities(match[1] ?? ''))
    t.same(DISCLOSURES.filter((path) => !footerLinks.includes(path)), [], `${page.path}: the disclosures`)
    t.same(REGISTERS.filter((pattern) => !footerLinks.some((href) => pattern.test(href))).map(String), [], `${page.path}: the registers`)
  }
  for (const path of DISCLOSURES) t.ok(sitemap.includes(path), `${path} is in the sitemap`)
})

const headings = (page: Page): string[] => [...page.main.matchAll(/<h2[^>]*>([\s\S]*?)<\/h2>/g)].map((match) => textOf(match[1] ?? ''))
const jsonLd = (page: Page): Record<string, any>[] =>
  [...page.html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].flatMap((match) => {
    const data = JSON.parse(match[1] ?? 'null') as Record<string, any>
    return Array.isArray(data['@graph']) ? (data['@graph'] as Record<string, any>[]) : [data]
  })
const euros = (amount: number): string => `€ ${amount.toLocaleString('nl-NL')}`

t.test('what a visitor acts on: cover, eigen risico, insurers and a next step; a job\'s date, hours and salary; more to read', async (t) => {
  const insurances = sitemapPages.filter((page) => /^\/onze-verzekeringen\/[^/]+$/.test(page.path))
  t.ok(insurances.length >= 10, `${insurances.length} insurances`)
  for (const page of insurances) {
    t.same(
      ['Wat is gedekt?', 'Wat is niet gedekt?', 'Eigen risico', 'Bij welke verzekeraars?'].filter((heading) => !headings(page).includes(heading)),
      [],
      `${page.path}: what is covered, what not, the eigen risico and the insurers, each under its heading`,
    )
    t.match(textOf(page.main), /Bereikbaar ma t\/m vr \d\d:\d\d – \d\d:\d\d/, `${page.path}: the call says when`)
    t.ok(page.hrefs.some((href) => href.startsWith('tel:')) && page.hrefs.some((href) => /^mailto:[^?]+@[^?]+\?subject=/.test(href)), `${page.path}: call, or mail about it`)
  }
  const overview = pages.get('/onze-verzekeringen') as Page
  t.ok(headings(overview).includes('Verzekeraars waarmee wij werken'), 'the overview names the insurers')
  t.ok(overview.hrefs.filter((href) => href.startsWith('https://www.')).length >= 10, 'each insurer to its website')

  const jobs = sitemapPages.filter((page) => /^\/werken-bij\/[^/]+$/.test(page.path) && page.path !== '/werken-bij/open-sollicitatie')
  const list = textOf((pages.get('/werken-bij') as Page).main)
  t.ok(jobs.length >= 4, `${jobs.length} vacancies`)
  for (const page of jobs) {
    const posting = jsonLd(page).find((item) => item['@type'] === 'JobPosting')
    const salary = posting?.baseSalary?.value as { minValue: number; maxValue: number } | undefined
    t.ok(posting && salary, `${page.path}: JobPosting with a salary`)
    if (!posting || !salary) continue
    const facts = textOf(/<dl class="job-facts"[\s\S]*?<\/dl>/.exec(page.main)?.[0] ?? '')
    const stated = `${euros(salary.minValue)} – ${euros(salary.maxValue)} bruto per maand bij`
    t.match(facts, new RegExp(`${stated} \\d+ uur per week`), `${page.path}: the facts give JobPosting's salary (baseSalary), with the hours it is for`)
    const hours = new RegExp(`${stated} (\\d+) uur per week`).exec(facts)?.[1]
    t.match(list, `${stated} ${hours} uur per week`, `${page.path}: and so does the list of vacancies`)
    t.match(facts, /Geplaatst op \d+ \w+ \d{4}/, `${page.path}: the posting date`)
    const apply = page.main.indexOf('href="#vacature-howToApply"')
    t.ok(apply > 0 && apply < page.main.indexOf('<h2'), `${page.path}: how to apply, before the first section`)
  }
  t.equal(countMatches(list, /Geplaatst op \d+ \w+ \d{4}/g), jobs.length, 'the list gives every vacancy\'s posting date')

  const articles = sitemapPages.filter((page) => /^\/actueel\/[^/]+$/.test(page.path))
  t.ok(articles.length >= 8, `${articles.length} articles`)
  for (const page of articles) {
    const more = /<section[^>]*aria-labelledby="meer-nieuws"[\s\S]*?<\/section>/.exec(page.main)?.[0] ?? ''
    const others = [...more.matchAll(/href="(\/actueel\/[^"]+)"/g)].map((match) => match[1])
    t.ok(others.length >= 2 && !others.includes(page.path), `${page.path}: more to read, not itself`)
    t.ok(
      [/^mailto:\?subject=/, /^https:\/\/wa\.me\/\?text=/, /^https:\/\/www\.linkedin\.com\/sharing\/share-offsite\/\?url=/].every((pattern) => page.hrefs.some((href) => pattern.test(href))),
      `${page.path}: plain share links`,
    )
    t.notMatch(page.html, /<script[^>]+src="https?:\/\//, `${page.path}: no script of a third party`)
  }
})

const countMatches = (text: string, pattern: RegExp): number => [...text.matchAll(pattern)].length
