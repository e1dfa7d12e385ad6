import t from 'tap'
import { request } from 'undici'
import { startFaultySystem } from '../../helpers/fault-upstream.ts'

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
  const renders = async () => {
    const text = await (await request(`${system.rendererUrl}/metrics`)).body.text()
    return [...text.matchAll(/^http_requests_total\{[^}]*route="\/\*"[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0)
  }
  const before = await renders()
  for (let i = 0; i < 50; i++) {
    const [status] = await where(i % 2 === 0 ? `/Kantoren?n=${i}` : `/VACATURES?n=${i}`)
    t.equal(status, 301)
  }
  t.equal(upstream.calls.length, calls, 'no CMS call')
  t.equal(await renders(), before, 'no render')
})

