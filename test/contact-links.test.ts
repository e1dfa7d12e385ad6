import t from 'tap'
import { request } from 'undici'
import { contactParts } from '../shared/contact-links.ts'
import { decodeEntities } from './helpers/html.ts'
import { startSystem } from './helpers/system.ts'
import { sitemapLocs } from './helpers/sitemap.ts'

const SITE = 'https://www.havenborg.example'
const system = await startSystem({ SITE_URL: SITE })
t.teardown(() => system.close())

const get = async (path: string): Promise<string> => {
  const response = await request(`${system.url}${path}`)
  const body = await response.body.text()
  if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode}`)
  return body
}

/** The visible text of a page's body outside its tel: and mailto: links (scripts, styles and the head left out). */
function textOutsideContactLinks(html: string): string {
  const body = html.replace(/^[\s\S]*?<body[^>]*>/, '').replace(/<script[\s\S]*?<\/script>/g, ' ').replace(/<style[\s\S]*?<\/style>/g, ' ')
  const unlinked = body.replace(/<a [^>]*href="(?:tel|mailto):[^"]*"[^>]*>[\s\S]*?<\/a>/g, ' ')
  return decodeEntities(unlinked.replace(/<[^>]+>/g, ' '))
}

t.test('every phone number and e-mail address on every page of the sitemap is a tel: or mailto: link, numbers in E.164', async (t) => {
  const paths = (await sitemapLocs(system.url)).map((loc) => new URL(loc).pathname)
  t.ok(paths.length > 30, `${paths.length} pages`)
  let tels = 0
  for (const path of paths) {
    const html = await get(path)
    const bare = contactParts(textOutsideContactLinks(html)).filter((part) => typeof part !== 'string')
    t.same(bare, [], `${path}: no number or address outside a link`)
    for (const match of html.matchAll(/href="tel:([^"]*)"/g)) {
      tels++
      // E.164, or the emergency number, which is dialled as it is.
      t.match(match[1], /^(?:\+31[1-9]\d{8}|112)$/, `${path}: tel:${match[1]} is E.164 or 112`)
    }
  }
  t.ok(tels >= paths.length, 'the footer\'s numbers on every page, and more')
})

t.test('the damage page\'s numbers and address, written in its text, are links', async (t) => {
  const html = await get('/onze-dienstverlening/schade-melden')
  t.match(html, /<a href="tel:\+31881234599">088\u00a0\u2011\u00a0123\u00a045\u00a099<\/a>/, 'the damage line in the rich text, with non-breaking spaces and hyphen')
  t.match(html, /<a href="mailto:schade@havenborg\.nl">schade@havenborg\.nl<\/a>/)
  t.match(html, /Bel <a href="tel:112">112<\/a>\./, '"Bel 112" is a tap to call')
})

t.test('112 is a link where the text says to call it, and nowhere else', async (t) => {
  const tel = (text: string) => contactParts(text).filter((part) => typeof part !== 'string')
  t.same(tel('Is er letsel? Bel 112.'), [{ kind: 'tel', text: '112', href: 'tel:112' }])
  t.same(tel('bel 112 of de huisartsenpost'), [{ kind: 'tel', text: '112', href: 'tel:112' }])
  t.same(tel('112 woningen, artikel 112, bel 1120, bel 0112'), [])
})
