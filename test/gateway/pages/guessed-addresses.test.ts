import t from 'tap'
import { request } from 'undici'
import { startFaultySystem } from '../../helpers/fault-upstream.ts'
import { get as getUrl } from '../../helpers/http.ts'

/**
 * Issue 49, finding 6: addresses people guess. A path of the site typed with
 * capitals goes to its own address, the words people type go where they
 * mean (the CMS's redirects), and a 404 names the nearest page of the
 * sitemap; all of it at the cost of any 404.
 */
const { system, upstream } = await startFaultySystem(t)

/** The status and Location of an address, the answer's body read and dropped. */
async function where(path: string): Promise<[number, string | undefined]> {
  const answer = await request(`${system.url}${path}`)
  await answer.body.dump()
  const location = answer.headers.location
  return [answer.statusCode, typeof location === 'string' ? location : undefined]
}

/** Renders the renderer answered so far, by its own metrics. */
async function renders(): Promise<number> {
  const text = await (await request(`${system.rendererUrl}/metrics`)).body.text()
  return [...text.matchAll(/^http_requests_total\{[^}]*route="\/\*"[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0)
}

t.test('a path of the site with capitals goes to its lower-case address, with its query', async (t) => {
  for (const [path, location] of [
    ['/Kantoren', '/kantoren'],
    ['/KANTOREN', '/kantoren'],
    ['/Over-Ons?utm_source=x', '/over-ons?utm_source=x'],
    ['/Actueel?pagina=2', '/actueel?pagina=2'],
    ['/Onze-Verzekeringen/Autoverzekering', '/onze-verzekeringen/autoverzekering'],
    ['/Werken-Bij/Allround-Schadebehandelaar', '/werken-bij/allround-schadebehandelaar'],
  ] as const) {
    t.same(await where(path), [301, location], `${path} -> ${location}`)
  }
  t.same(await where('/Schade'), [301, '/onze-dienstverlening/schade-melden'], 'a rule of the lower-case path is followed at once: one hop')
  t.same(await where('/Bestaat-Niet'), [404, undefined], 'a lower-case path that is no page is the 404, not a redirect')
  t.same(await where('/topical/Bad_Slug'), [404, undefined], 'nor one whose slug is no slug')
})

t.test('the words people type go to the page they mean', async (t) => {
  for (const [path, location] of [
    ['/vacatures', '/werken-bij'],
    ['/kantoor', '/kantoren'],
    ['/klacht', '/onze-dienstverlening/compliment-tip-of-klacht'],
    ['/offerte', '/contact'],
    ['/Vacatures', '/werken-bij'],
    ['/schade', '/onze-dienstverlening/schade-melden'],
    ['/klachten', '/onze-dienstverlening/compliment-tip-of-klacht'],
  ] as const) {
    t.same(await where(path), [301, location], `${path} -> ${location}`)
  }
})

t.test('no address sends a visitor to another origin', async (t) => {
  for (const path of ['/%2F%2FEvil.example', '/%2F%2FKantoren', '/%2FKantoren', '/%5CEvil.example', '/%5CKantoren', '/%2F%5CKantoren', '/Kantoren?x=//evil.example']) {
    const [status, location] = await where(path)
    if (location !== undefined) {
      t.ok(location.startsWith('/') && !location.startsWith('//') && !location.startsWith('/\\'), `${path}: ${status} to ${location}, a path of this site`)
    } else t.pass(`${path}: ${status}, no redirect`)
  }
  for (const path of ['//Kantoren', '//evil.example/Kantoren', '/\\Kantoren', '/\\evil.example']) {
    const [status, location] = await where(path)
    t.same([status, location], [400, undefined], `${path}: refused`)
  }
})

t.test('guessed addresses cost no CMS call and no render once the rules are known', async (t) => {
  await where('/kantoor')
  const calls = upstream.calls.length
  const before = await renders()
  for (let i = 0; i < 50; i++) {
    const [status] = await where(i % 2 === 0 ? `/Kantoren?n=${i}` : `/VACATURES?n=${i}`)
    t.equal(status, 301)
  }
  t.equal(upstream.calls.length, calls, 'no CMS call')
  t.equal(await renders(), before, 'no render')
})


const payloadOf = (html: string): Record<string, unknown> => JSON.parse(/<script type="application\/json" id="__PAYLOAD__">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? 'null') as Record<string, unknown>

/** The "Bedoelde u …?" paragraph of a page, if it has one. */
const suggestionOf = (html: string): string | undefined => /<p class="error-page__suggestion">[\s\S]*?<\/p>/.exec(html)?.[0]

t.test('a 404 names the nearest page of the sitemap, in the page and in its payload', async (t) => {
  t.equal((await getUrl(`${system.url}/sitemap.xml`)).status, 200)
  for (const [path, suggestion] of [
    ['/onze-verzekeringen/autoverzekring', '/onze-verzekeringen/autoverzekering'],
    ['/kantorn', '/kantoren'],
    ['/Kantorn', '/kantoren'],
    ['/overons', '/over-ons'],
    ['/reisverzekering', '/onze-verzekeringen/reisverzekering'],
    ['/actueel/premies-2027-uitgeleg', '/actueel/premies-2027-uitgelegd'],
  ] as const) {
    const page = await getUrl(`${system.url}${path}`)
    t.equal(page.status, 404, path)
    t.equal(suggestionOf(page.body), `<p class="error-page__suggestion">Bedoelde u <a href="${suggestion}">${suggestion}</a>?</p>`, `${path}: ${suggestion}`)
    t.equal(payloadOf(page.body).suggestion, suggestion, `${path}: the payload says the same, for hydration`)
    const payload = (await (await request(`${system.url}${path}/_payload.json`)).body.json()) as { suggestion: string | null }
    t.equal(payload.suggestion, suggestion, `${path}: and so does its payload on a client navigation`)
  }
  for (const path of ['/xqzw', `/${'zq'.repeat(500)}`, '/__404__x', '/bestaat-niet']) {
    const page = await getUrl(`${system.url}${path}`)
    t.equal(page.status, 404, `${path.slice(0, 20)}…`)
    t.equal(suggestionOf(page.body), undefined, `${path.slice(0, 20)}…: no suggestion when nothing is near`)
    t.equal(payloadOf(page.body).suggestion, null)
    t.notMatch(page.body, /__suggestie__/, 'nothing of the stand-in it was rendered with')
  }
})

t.test('many distinct guesses cost one stored 404 page: no CMS call and no render', async (t) => {
  await getUrl(`${system.url}/kantorn`)
  const calls = upstream.calls.length
  const before = await renders()
  const guesses = Array.from({ length: 300 }, (_, i) =>
    [`/kantore${i}`, `/onze-verzekeringen/autoverzekering-${i}`, `/actueel/premies-${i}`, `/${String(i).repeat(60)}`, `/Bestaat-Niet-${i}`, `/werken-bij/vacature-${i}`][i % 6] as string,
  )
  const answers = []
  for (const path of guesses) answers.push(await getUrl(`${system.url}${path}`))
  t.same(new Set(answers.map((answer) => `${answer.status} ${answer.cache}`)), new Set(['404 HIT']), 'each one the stored 404 page')
  t.ok(answers.some((answer) => suggestionOf(answer.body) !== undefined), 'with suggestions among them')
  t.equal(upstream.calls.length, calls, 'no CMS call')
  t.equal(await renders(), before, 'no render')
})
