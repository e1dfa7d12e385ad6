import { LRUCache } from 'lru-cache'

/** What the published answers last said of an entry: where it stands in its section's lists. */
export interface KnownEntry {
  section: string
  postDate: string | null | undefined
  slug: string | null | undefined
  status: string | null | undefined
}

/** Entries remembered at once; past this the least recently seen are forgotten (a forgotten entry's save purges its lists, as an unknown one's does). */
export const KNOWN_ENTRIES_MAX = 200_000

/**
 * The section, post date, slug and status of each entry as the cached
 * answers showed it before a save: a purge compares the saved entry with it
 * to tell a change of text (only the pages that show the entry change) from
 * a move in its section's lists (new, re-dated, a new address, or no longer
 * live: the lists change too). Only published answers are remembered, never
 * a preview's. Bounded by KNOWN_ENTRIES_MAX; about 200 bytes an entry.
 */
export class KnownEntries {
  private readonly entries: LRUCache<string, KnownEntry>

  constructor(max = KNOWN_ENTRIES_MAX) {
    this.entries = new LRUCache({ max })
  }

  get size(): number {
    return this.entries.size
  }

  /** An entry of an answer (any object with `id` and `sectionHandle`): what it says is kept, what it leaves out stays as known. */
  remember(record: Readonly<Record<string, unknown>>): void {
    const { id, sectionHandle } = record
    if ((typeof id !== 'string' && typeof id !== 'number') || typeof sectionHandle !== 'string') return
    const key = String(id)
    const known = this.entries.get(key)
    const field = (name: 'postDate' | 'slug' | 'status'): string | null | undefined => {
      const value = record[name]
      return typeof value === 'string' || value === null ? value : known?.[name]
    }
    this.entries.set(key, { section: sectionHandle, postDate: field('postDate'), slug: field('slug'), status: field('status') })
  }

  get(id: string): KnownEntry | undefined {
    return this.entries.get(id)
  }
}
