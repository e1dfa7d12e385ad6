import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import t from 'tap'
import { request } from 'undici'
import { forCaching } from '../gateway/http/content-security.ts'
import { ROOT } from './helpers/processes.ts'
import { startSystem } from './helpers/system.ts'

/** The stylesheet as built (dist/build.json names it): what every page's head must carry. */
function builtStylesheet(): string {
  const build = JSON.parse(readFileSync(join(ROOT, 'dist/build.json'), 'utf8')) as { assets: { stylesheet: string } }
  return readFileSync(join(ROOT, 'dist/client', basename(build.assets.stylesheet)), 'utf8')
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`
const directive = (csp: string, name: string): string => csp.split('; ').find((part) => part.startsWith(`${name} `)) ?? ''
const headOf = (html: string): string => /<head>([\s\S]*?)<\/head>/.exec(html)?.[1] ?? ''

t.test('the head carries the built stylesheet inline, allowed by the nonce of a fresh page and by its hash from the cache', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  const css = builtStylesheet()
  t.ok(css.length > 100, 'the build has a stylesheet')
  for (const path of ['/', '/kantoren', '/werken-bij/allround-schadebehandelaar']) {
    const fresh = await request(`${system.url}${path}`)
    const freshHtml = await fresh.body.text()
    const freshCsp = String(fresh.headers['content-security-policy'])
    t.equal(fresh.headers['x-cache'], 'MISS', `${path}: rendered afresh`)
    const nonce = /'nonce-([^']+)'/.exec(directive(freshCsp, 'style-src-elem'))?.[1]
    t.ok(nonce, `${path}: style elements are allowed by the response's nonce`)
    const head = headOf(freshHtml)
    t.ok(head.includes(`<style nonce="${nonce}">${css}</style>`), `${path}: the whole stylesheet, in the head, with the nonce`)
    t.notMatch(freshHtml, /<link rel="stylesheet"/, `${path}: no stylesheet request before the first paint`)
    t.notMatch(directive(freshCsp, 'style-src-elem'), 'unsafe-inline', `${path}: no other style element is allowed`)

    const cached = await request(`${system.url}${path}`)
    const cachedHtml = await cached.body.text()
    const cachedCsp = String(cached.headers['content-security-policy'])
    t.equal(cached.headers['x-cache'], 'HIT', `${path}: from the page cache`)
    t.ok(headOf(cachedHtml).includes(`<style>${css}</style>`), `${path}: the cached page carries it without the nonce`)
    t.match(directive(cachedCsp, 'style-src-elem'), sha256(css), `${path}: and its policy allows it by its hash`)
    t.notMatch(cachedCsp, 'nonce-', `${path}: and by no nonce`)
  }
})

t.test('only what carried the response nonce is allowed by hash once the page is cached', async (t) => {
  const nonce = 'bm9uY2U='
  const html = [
    `<head><style nonce="${nonce}">main{color:navy}</style><style>body{visibility:hidden}</style>`,
    `<script nonce="${nonce}">ours()</script><script>injected()</script><script type="application/json">{}</script></head>`,
  ].join('')
  const { html: stored, inline } = forCaching(html, nonce)
  t.same(inline.styles, [sha256('main{color:navy}')], 'the style with the nonce, not the other')
  t.same(inline.scripts, [sha256('ours()')], 'the script with the nonce, not the other, nor data')
  t.notMatch(stored, 'nonce=', 'the stored page has no nonce left')
  t.same(forCaching(html, undefined).inline, { scripts: [], styles: [] }, 'a page rendered without a nonce allows nothing inline')
})

t.test('the page preloads its modules at low priority: its first paint needs none of them', async (t) => {
  const system = await startSystem()
  t.teardown(() => system.close())
  // The home page streams (React's bootstrap module), the offices page is rendered whole (the entry as a script element).
  for (const path of ['/', '/kantoren']) {
    const html = await (await request(`${system.url}${path}`)).body.text()
    const preloads = [...headOf(html).matchAll(/<link rel="modulepreload"[^>]*>/g)].map(([tag]) => tag)
    t.ok(preloads.length >= 2, `${path}: the entry and its chunks are preloaded (${preloads.length})`)
    t.same(preloads.filter((tag) => !tag.includes('fetchPriority="low"')), [], `${path}: each at low priority`)
  }
})
