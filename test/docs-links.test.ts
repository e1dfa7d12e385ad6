import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import t from 'tap'
import { ROOT } from './helpers/processes.ts'

const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]
const text = (page: string) => readFileSync(join(ROOT, page), 'utf8')

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const [, heading] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.*)$/gm)) {
    const base = heading!.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replaceAll(' ', '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

t.test('the README is a front page: the set-up commands, the diagram, and links into docs/', async (t) => {
  const readme = text('README.md')
  t.ok(readme.split('\n').length <= 150, 'at most 150 lines')
  for (const command of ['npm install && npm start', 'npm test']) t.ok(readme.includes(command), `names ${command}`)
  t.match(readme, /```mermaid\n/, 'a Mermaid diagram of the services')
  for (const page of pages.filter((page) => page.startsWith('docs/') && page !== 'docs/performance-history.md' && page !== 'docs/hardening.md')) {
    t.ok(readme.includes(`](${page}`), `links ${page}`)
  }
})

t.test('every link between README.md and docs/ reaches a file, and its #anchor a heading there', async (t) => {
  const anchors = new Map(pages.map((page) => [page, anchorsOf(text(page))]))
  for (const page of pages) {
    for (const [, link] of text(page).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(link!)) continue
      const [path, anchor] = link!.split('#') as [string, string | undefined]
      const target = path === '' ? page : relative(ROOT, normalize(join(ROOT, dirname(page), path)))
      t.ok(existsSync(join(ROOT, target)), `${page}: ${link} exists`)
      if (anchor !== undefined && anchors.has(target)) t.ok(anchors.get(target)!.has(anchor), `${page}: ${link} names a heading`)
    }
  }
})

t.test('README.md and docs/ point nowhere outside the repository: no link out of it, no ../shared', async (t) => {
  for (const page of pages) {
    const markdown = text(page)
    t.notMatch(markdown, /\.\.\/shared\b/, `${page}: no ../shared (it is not in a fresh clone)`)
    for (const [, link] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(link!)) continue
      const target = relative(ROOT, normalize(join(ROOT, dirname(page), link!.split('#')[0]!)))
      t.notOk(target.startsWith('..'), `${page}: ${link} stays in the repository`)
    }
  }
})
