// npm run bench -- --saves [--scales=1,10,100] [--webhook=section|entry] [--out=FILE]: what each kind of an
// editor's save costs (issue 50), at 1×, 10× and 100× content (scripts/scale-content.ts), each on a system of its
// own (gateway and renderer, embedded CMS, PURGE_SECRET set; page and query TTLs of a day, so that nothing but the
// save makes work). Every sitemap page is warmed until it is a HIT; then, for each kind of save in turn, the content
// file the embedded CMS reads is changed (its file watch reloads it: gateway/embedded-cms/live-updates.ts; the
// script waits until the CMS answers the change), the webhook's purge is sent, and every page a crawler finds
// (sitemap index and children, every sitemap address, every overview page) is asked once, then again once the
// gateway's background refreshes are idle. Counted from the purge to the end of that: renders (the renderer's
// render_duration_seconds_count) and CMS calls (the gateway's upstream_request_duration_seconds_count); and how many
// pages still show the old text. Between kinds every page is asked again until all are HITs (the renders that
// takes are reported as "renders to settle"). Writes bench/saves.json.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { request } from 'undici'
import { ARTICLES_PER_PAGE, DEFAULT_SITE_HANDLE, EMBEDDED_CMS_PATH } from '../shared/constants.ts'
import { PAGE_QUERY_PARAM } from '../shared/routes.ts'
import { withProduct } from '../shared/sections.ts'
import { freePort } from './free-port.mjs'
import { SCALES, writeScaledContent } from './scale-content.ts'
import { cores, loadAverage, log, root, startSystem, stop, tempDir } from './bench-processes.mjs'

const option = (name) => process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)
const scales = (option('scales') ?? '1,10').split(',').map(Number).filter((scale) => scale in SCALES)
const webhook = option('webhook') ?? 'section'
if (!['section', 'entry'].includes(webhook)) throw new Error(`--webhook=${webhook}: section or entry`)
const out = option('out') ?? join(root, 'bench/saves.json')
const PURGE_SECRET = randomBytes(16).toString('hex')
const CONCURRENCY = 4
const DAY_MS = '86400000'
const TOPICAL_FILE = 'site-topical.json'
/** Bounds for a bench that would otherwise hang: warming rounds, and how long background work may take to settle. */
const MAX_WARM_ROUNDS = 60
const IDLE_TIMEOUT_MS = 30 * 60_000
const POLL_MS = 250
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** A page as it is (identity): its status, X-Cache and text. */
async function get(base, path) {
  const response = await request(`${base}${path}`, { headers: { 'accept-encoding': 'identity' } })
  return { status: response.statusCode, cache: String(response.headers['x-cache'] ?? ''), text: await response.body.text() }
}

/** `visit` for every path, CONCURRENCY at a time, results in the paths' order. */
async function each(paths, visit) {
  let next = 0
  const results = []
  const worker = async () => {
    while (next < paths.length) {
      const i = next++
      results[i] = await visit(paths[i])
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return results
}

/** The sum of a metric's series in Prometheus text, those whose labels contain `labels` when given. */
function sumOf(text, name, labels = '') {
  let total = 0
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))) if ((match[1] ?? '').includes(labels)) total += Number(match[2])
  return total
}

const metricsOf = async (url) => (await request(url)).body.text()

/** The counters a save is measured by: renders (renderer), CMS calls and background refreshes asked for (gateway). */
async function counters(system) {
  const [gateway, renderer] = await Promise.all([metricsOf(system.metricsUrl), metricsOf(`${system.rendererUrl}/metrics`)])
  return {
    renders: sumOf(renderer, 'render_duration_seconds_count'),
    cmsCalls: sumOf(gateway, 'upstream_request_duration_seconds_count'),
    refreshes: sumOf(gateway, 'page_refreshes_total', 'outcome="started"') + sumOf(gateway, 'page_refreshes_total', 'outcome="queued"'),
    refused: sumOf(gateway, 'page_refreshes_total', 'outcome="refused"'),
    busy: ['page_refreshes_in_flight', 'page_refreshes_waiting', 'admission_in_flight', 'admission_waiting'].reduce((sum, name) => sum + sumOf(gateway, name), 0),
  }
}

const difference = (after, before) => Object.fromEntries(['renders', 'cmsCalls', 'refreshes', 'refused'].map((key) => [key, after[key] - before[key]]))

/** Waits until the gateway has no refresh, render or CMS call in flight or waiting, and two reads in a row agree. */
async function idle(system) {
  const deadline = Date.now() + IDLE_TIMEOUT_MS
  let last
  for (;;) {
    const now = await counters(system)
    if (now.busy === 0 && last && now.renders === last.renders && now.cmsCalls === last.cmsCalls) return now
    if (Date.now() > deadline) throw new Error(`the gateway's background work did not settle in ${IDLE_TIMEOUT_MS / 60_000} min`)
    last = now.busy === 0 ? now : undefined
    await sleep(POLL_MS)
  }
}

const pathOf = (loc) => {
  const url = new URL(loc.replaceAll('&amp;', '&'))
  return `${url.pathname}${url.search}`
}
const locs = (xml) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => pathOf(match[1]))

/** What a crawler finds: the sitemap index, its children, and their addresses. */
async function sitemap(system) {
  const children = locs((await get(system.url, '/sitemap.xml')).text)
  const pages = []
  for (const child of children) pages.push(...locs((await get(system.url, child)).text))
  return { children, pages }
}

/** Every page a crawler asks after a save: the sitemap, its addresses, and every page of the articles' overview. */
function crawl(site, articleCount) {
  const overview = Array.from({ length: Math.ceil(articleCount / ARTICLES_PER_PAGE) - 1 }, (_, i) => `/actueel?${PAGE_QUERY_PARAM}=${i + 2}`)
  return [...new Set(['/sitemap.xml', ...site.children, ...site.pages, ...overview])]
}

/**
 * Asks the pages until every one is a HIT (waiting for the background refreshes in between); a page that is a MISS
 * again once asked (never stored) is left. Returns the renders it took.
 */
async function warm(system, paths) {
  const before = await idle(system)
  let pending = paths
  for (let round = 1; pending.length > 0; round++) {
    if (round > MAX_WARM_ROUNDS) throw new Error(`${pending.length} pages still not HIT after ${MAX_WARM_ROUNDS} rounds, e.g. ${pending.slice(0, 3).join(' ')}`)
    const answers = await each(pending, (path) => get(system.url, path))
    pending = pending.filter((_, i) => answers[i].status === 200 && (answers[i].cache === 'STALE' || (answers[i].cache === 'MISS' && round === 1)))
    await idle(system)
  }
  return (await idle(system)).renders - before.renders
}

/** The ways a text appears in a page: as it is, escaped by React in HTML, and in the payload's JSON. */
function formsOf(text) {
  const html = text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#x27;')
  const json = JSON.stringify(text).slice(1, -1).replaceAll('<', '\\u003c').replaceAll('>', '\\u003e')
  return [...new Set([text, html, json])]
}
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** Whether a page shows a title, not counting the scale content's copies of it ("Title (12)"). */
const showsTitle = (title) => {
  const pattern = new RegExp(`(?:${formsOf(title).map(escapeRegExp).join('|')})(?! \\(\\d)`)
  return (text) => pattern.test(text)
}

/** An entry's page (a scaled copy of "ons-nieuwe-merk-{product}" has the site in its address). */
const pageOf = (entry) => `/${withProduct(entry.uri, DEFAULT_SITE_HANDLE)}`

/** The articles of the embedded CMS's content file, newest first (Craft's default order), and a way to save them. */
function contentFile(dir) {
  const file = join(dir, TOPICAL_FILE)
  const content = JSON.parse(readFileSync(file, 'utf8'))
  const articles = () =>
    content.entries.filter((entry) => entry.section === 'topical' && entry.enabled).sort((a, b) => Date.parse(b.postDate) - Date.parse(a.postDate))
  // Written beside and renamed over it, so that the CMS's watch never reads half a file.
  const save = () => {
    writeFileSync(`${file}.tmp`, JSON.stringify(content))
    renameSync(`${file}.tmp`, file)
  }
  return { content, articles, save }
}

/** The entry as the embedded CMS answers it now; null while it has none. */
async function cmsEntry(system, id) {
  const query = `{ entries(id: ["${id}"]) { id title dateUpdated } }`
  const response = await request(system.cmsUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) })
  return JSON.stringify((await response.body.json()).data?.entries?.[0] ?? null)
}

/** Changes the content file, then waits until the CMS's file watch has reloaded it (its answer for the entry changed). */
async function edit(system, file, id, change) {
  const before = await cmsEntry(system, id)
  change()
  // As Craft does on every save; the CMS's answer for a text change differs by it.
  const entry = file.content.entries.find((candidate) => candidate.id === id)
  if (entry) entry.dateUpdated = new Date().toISOString()
  file.save()
  const deadline = Date.now() + 60_000
  while ((await cmsEntry(system, id)) === before) {
    if (Date.now() > deadline) throw new Error(`the embedded CMS did not reload entry ${id} within 60 s of the content file's change`)
    await sleep(POLL_MS)
  }
}

/**
 * The four kinds of save: each changes the content and says what it saved and how to tell a page that still shows
 * the old text (`stale(path, text)`), with `missing()` for what must show the change but no page did.
 */
function kindsOfSave(stamp, site) {
  const titleChange = (pick) => (file) => {
    const entry = pick(file.articles())
    const oldTitle = entry.title
    const showsOld = showsTitle(oldTitle)
    return { entry, change: () => (entry.title = `Bijgewerkte titel ${stamp()}`), stale: (_path, text) => showsOld(text), missing: () => 0, oldText: oldTitle }
  }
  const middle = (articles) => articles[Math.floor(articles.length / 2)]
  return [
    { kind: 'old article: title', save: titleChange(middle) },
    { kind: 'newest article: title', save: titleChange((articles) => articles[0]) },
    { kind: 'new article', save: (file) => newArticle(file, stamp(), site) },
    { kind: 'old article: text', save: (file) => textChange(file, stamp()) },
  ]
}

/** A new article, dated now: it must show on the overview's first page, the home page, its older neighbour's "Meer nieuws" and a sitemap child. */
function newArticle(file, stamp, site) {
  const [newest] = file.articles()
  const slug = `nieuw-artikel-${stamp}`
  const now = new Date().toISOString()
  const entry = { ...structuredClone(newest), id: String(9_000_000 + file.content.entries.length), slug, uri: `actueel/${slug}`, title: `Nieuw artikel ${stamp}`, postDate: now, dateUpdated: now }
  const showsNew = showsTitle(entry.title)
  const mustShow = new Set(['/actueel', '/', pageOf(newest)])
  let inSitemap = false
  site.pages.push(pageOf(entry))
  return {
    entry,
    isNew: true,
    change: () => file.content.entries.push(entry),
    stale: (path, text) => {
      if (path.startsWith('/sitemap-') && text.includes(`${pageOf(entry)}<`)) inSitemap = true
      // The neighbour counts only where its page has a "Meer nieuws".
      return mustShow.has(path) && (path !== pageOf(newest) || text.includes('Meer nieuws')) && !showsNew(text)
    },
    missing: () => (inSitemap ? 0 : 1),
    oldText: null,
  }
}

/** An old article's text (not its title): its own page must show the new text. */
function textChange(file, stamp) {
  const articles = file.articles()
  // A third of the way down: not the middle one, whose title an earlier kind changed.
  const entry = articles[Math.floor(articles.length / 3)]
  const marker = `Bijgewerkte tekst ${stamp}.`
  return {
    entry,
    change: () => (entry.fields.text = `<p>${marker}</p>${entry.fields.text ?? ''}`),
    stale: (path, text) => path === pageOf(entry) && !text.includes(marker),
    missing: () => 0,
    oldText: '(its text before the marker paragraph)',
  }
}

/** The webhook's body: today's section purge, or the entry event of issue 50. */
function purgeBody(saved) {
  const { entry } = saved
  if (webhook === 'section') return { sections: [entry.section], tags: [`entry:${entry.id}`] }
  // The slug as Craft has it: the content files write the site handle as {product} (a scaled copy of "ons-nieuwe-merk-{product}").
  const slug = withProduct(entry.slug, DEFAULT_SITE_HANDLE)
  return { entry: { event: 'save', id: entry.id, section: entry.section, isNew: saved.isNew === true, postDate: new Date(entry.postDate).toISOString(), slug, status: 'live' } }
}

/** Sends the purge; says whether the gateway took it as meant (an entry body it does not know purges everything on main). */
async function purge(system, saved, cachedPages) {
  const body = purgeBody(saved)
  const response = await request(`${system.url}/api/purge`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-purge-secret': PURGE_SECRET }, body: JSON.stringify(body) })
  const answer = await response.body.json().catch(() => null)
  if (response.statusCode !== 200) return { ok: false, status: response.statusCode, answer, note: `the gateway refused the ${webhook} body with ${response.statusCode} (${answer?.code ?? ''} ${answer?.message ?? ''}): skipped` }
  const everything = webhook === 'entry' && answer?.sections == null && answer?.tags == null && answer?.entry === undefined && answer?.pages >= cachedPages
  if (everything) return { ok: false, status: 200, answer, note: `the gateway ignored the entry body and purged every page (${answer.pages}): it does not know the entry event; skipped` }
  return { ok: true, status: 200, answer }
}

/** Asks every page once, waits for the background refreshes, and asks again: what the crawler saw the second time. */
async function crawlTwice(system, paths, saved) {
  const first = await each(paths, async (path) => (await get(system.url, path)).cache)
  await idle(system)
  const second = await each(paths, async (path) => {
    const { cache, text } = await get(system.url, path)
    return { path, cache, stale: saved.stale(path, text) }
  })
  await idle(system)
  const tally = (caches) => caches.reduce((all, cache) => ({ ...all, [cache]: (all[cache] ?? 0) + 1 }), {})
  const stale = second.filter((answer) => answer.stale).map((answer) => answer.path)
  return { firstPass: tally(first), secondPass: tally(second.map((answer) => answer.cache)), stalePages: stale.length + saved.missing(), staleExamples: stale.slice(0, 5) }
}

/** One kind of save on a warm system: the change, its purge, the crawl after it, and what they cost. */
async function measureSave(system, file, site, { kind, save }) {
  const saved = save(file)
  await edit(system, file, saved.entry.id, saved.change)
  const paths = crawl(site, file.articles().length)
  const cachedPages = sumOf(await metricsOf(system.metricsUrl), 'page_cache_entries')
  const started = performance.now()
  const before = await idle(system)
  const purged = await purge(system, saved, cachedPages)
  const row = { kind, id: saved.entry.id, slug: saved.entry.slug, old_text: saved.oldText, purge: { status: purged.status, answer: purged.answer } }
  if (!purged.ok) {
    log(`${kind}: ${purged.note}`)
    // The next kind starts from a warm cache whatever this purge did.
    return { ...row, skipped: purged.note, renders_to_settle: await warm(system, paths) }
  }
  const seen = await crawlTwice(system, paths, saved)
  const cost = difference(await idle(system), before)
  const seconds = Math.round((performance.now() - started) / 1000)
  const rendersToSettle = await warm(system, paths)
  log(`${kind}: ${cost.renders} renders, ${cost.cmsCalls} CMS calls, ${seen.stalePages} pages with the old text, ${seconds} s; ${rendersToSettle} renders to settle`)
  return { ...row, pages_asked: paths.length, renders: cost.renders, cms_calls: cost.cmsCalls, refreshes_started_or_queued: cost.refreshes, refreshes_refused: cost.refused, stale_pages: seen.stalePages, stale_examples: seen.staleExamples, first_pass: seen.firstPass, second_pass: seen.secondPass, seconds, renders_to_settle: rendersToSettle }
}

/** A system of its own at one scale: warmed, then every kind of save in turn. */
async function measureScale(scale) {
  const started = performance.now()
  const dir = tempDir(`saves-${scale}x-`)
  const { entries } = writeScaledContent(dir, SCALES[scale])
  const [internalPort, cmsPort] = [await freePort(), await freePort()]
  const env = { CONTENT_DIR: dir, PURGE_SECRET, INTERNAL_PORT: String(internalPort), EMBEDDED_CMS_PORT: String(cmsPort), PAGE_CACHE_TTL_MS: DAY_MS, CACHE_TTL_MS: DAY_MS }
  const system = await startSystem(`${scale}x`, env, { secret: randomBytes(32).toString('base64url') })
  Object.assign(system, { metricsUrl: `http://127.0.0.1:${internalPort}/metrics`, cmsUrl: `http://127.0.0.1:${cmsPort}${EMBEDDED_CMS_PATH}` })
  try {
    const file = contentFile(dir)
    const site = await sitemap(system)
    const paths = crawl(site, file.articles().length)
    log(`${scale}×: warming ${paths.length} pages`)
    await warm(system, paths)
    const warmSeconds = Math.round((performance.now() - started) / 1000)
    let n = 0
    const stamp = () => `${Date.now().toString(36)}-${++n}`
    const saves = []
    for (const kind of kindsOfSave(stamp, site)) saves.push(await measureSave(system, file, site, kind))
    return { scale: `${scale}×`, articles: entries.topical ?? 0, pages: paths.length, warm_seconds: warmSeconds, seconds: Math.round((performance.now() - started) / 1000), load_average: loadAverage(), saves }
  } finally {
    await Promise.all([stop(system.gateway), stop(system.renderer)])
  }
}

function printTable(result) {
  console.log(`\n${result.scale}: ${result.articles} articles, ${result.pages} pages asked per pass, warmed in ${result.warm_seconds} s, ${result.seconds} s in all (load ${result.load_average}); --webhook=${webhook}`)
  console.log('| kind of save | renders | CMS calls | pages with the old text | second pass (X-Cache) | renders to settle | s |')
  console.log('|---|---:|---:|---:|---|---:|---:|')
  for (const save of result.saves) {
    if (save.skipped) console.log(`| ${save.kind} | – | – | – | ${save.skipped} | – | – |`)
    else console.log(`| ${save.kind} | ${save.renders} | ${save.cms_calls} | ${save.stale_pages} | ${Object.entries(save.second_pass).map(([cache, count]) => `${cache} ${count}`).join(', ')} | ${save.renders_to_settle} | ${save.seconds} |`)
  }
}

const results = { date: new Date().toISOString(), webhook, machine: { cores, node: process.version, load_average_1min_start: loadAverage() }, scales: [] }
for (const scale of scales) {
  log(`measuring saves at ${scale}×, --webhook=${webhook}`)
  const result = await measureScale(scale)
  results.scales.push(result)
  printTable(result)
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`)
}
