import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ContentFile, StoredEntry } from '../gateway/embedded-cms/content-store.ts'

/** The shipped content of the embedded CMS. */
export const SHIPPED_CONTENT_DIR = new URL('../gateway/embedded-cms/content', import.meta.url).pathname

/** How many entries of each channel a scale has (issue 39's sizes: 1× is the shipped content). */
export const SCALES = {
  1: { topical: 0, jobs: 0, services: 0, insurances: 0 },
  10: { topical: 1_000, jobs: 50, services: 20, insurances: 20 },
  100: { topical: 10_000, jobs: 500, services: 200, insurances: 200 },
} as const

export type Scale = keyof typeof SCALES
export type Channel = keyof (typeof SCALES)[Scale]

/**
 * Writes the shipped content into `dir` with each channel grown to `sizes`
 * (a channel with fewer entries shipped gets copies of them, each with its
 * own id, slug, address and post date, an hour apart and older than the
 * shipped ones): the embedded CMS's own format, to read through CONTENT_DIR.
 */
export function writeScaledContent(dir: string, sizes: Partial<Record<Channel, number>>): { entries: Record<string, number> } {
  mkdirSync(dir, { recursive: true })
  const counts: Record<string, number> = {}
  let nextId = 1_000_000
  for (const name of readdirSync(SHIPPED_CONTENT_DIR).filter((file) => file.endsWith('.json')).sort()) {
    const file = JSON.parse(readFileSync(join(SHIPPED_CONTENT_DIR, name), 'utf8')) as ContentFile
    const entries = file.entries ?? []
    const grown: StoredEntry[] = [...entries]
    for (const [channel, size] of Object.entries(sizes) as [Channel, number][]) {
      const shipped = entries.filter((entry) => entry.section === channel && entry.enabled)
      if (shipped.length === 0) continue
      const oldest = Math.min(...shipped.map((entry) => Date.parse(entry.postDate ?? '2026-01-01T00:00:00Z')))
      for (let n = shipped.length; n < size; n++) {
        const model = shipped[n % shipped.length] as StoredEntry
        const copy = n - shipped.length + 1
        const slug = `${model.slug}-${copy}`
        const posted = new Date(oldest - copy * 3_600_000).toISOString()
        const uri = model.uri === null ? null : `${model.uri.slice(0, model.uri.lastIndexOf('/') + 1)}${slug}`
        grown.push({ ...model, id: String(nextId++), slug, uri, title: `${model.title} (${copy})`, postDate: posted, dateUpdated: posted })
      }
    }
    for (const entry of grown) counts[entry.section] = (counts[entry.section] ?? 0) + 1
    writeFileSync(join(dir, name), JSON.stringify({ ...file, ...(file.entries ? { entries: grown } : {}) }))
  }
  return { entries: counts }
}
