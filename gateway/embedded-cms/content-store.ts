import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PRODUCT_PLACEHOLDER } from '../../shared/constants.ts'
import { withProduct } from '../../shared/sections.ts'

export interface StoredEntry {
  id: string
  section: string
  type: string
  title: string
  slug: string
  uri: string | null
  postDate: string | null
  dateUpdated: string | null
  enabled: boolean
  /** Craft's native authors (user ids); the first is `author`. */
  authorIds?: string[]
  /** An entry of a Structure section: its place in the structure (Craft's `lft`), the order its entries come in unless asked otherwise. */
  lft?: number
  fields: Record<string, unknown>
}

/** One of Craft's users, as entries' native `author` gives it. */
export interface StoredUser {
  id: string
  username: string
  firstName: string | null
  lastName: string | null
}

export interface StoredAsset {
  id: string
  title: string | null
  filename: string
  /** The file's path relative to the volume (gateway/embedded-cms/assets); the schema makes it absolute. */
  url: string
  width: number | null
  height: number | null
  alt: string | null
  mimeType: string | null
  /**
   * Image transforms as Craft makes them, by width and then by format
   * (transforms.ts EMBEDDED_TRANSFORM_FORMATS): path relative to the volume.
   */
  transforms?: Record<string, Partial<Record<string, string>>>
}

export interface StoredGlobalSet {
  handle: string
  name: string
  fields: Record<string, unknown>
}

export interface ContentFile {
  entries?: StoredEntry[]
  assets?: StoredAsset[]
  globalSets?: StoredGlobalSet[]
  users?: StoredUser[]
  drafts?: { token: string; entry: StoredEntry }[]
}

export interface EntryQuery {
  section?: string[] | null
  type?: string[] | null
  slug?: string[] | null
  uri?: string[] | null
  id?: string[] | null
  site?: string[] | null
  relatedTo?: string[] | null
  /** Craft's date criteria: `">= 2026-01-01"`, `"< …"`, a date alone for that instant; several are any of them, or all after a leading `"and"`. */
  postDate?: string[] | null
  orderBy?: string | null
  limit?: number | null
  offset?: number | null
}

function replaceProduct<T>(value: T, product: string): T {
  if (typeof value === 'string') return (value.includes(PRODUCT_PLACEHOLDER) ? withProduct(value, product) : value) as T
  if (Array.isArray(value)) return value.map((item) => replaceProduct(item, product)) as T
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceProduct(v, product)])) as T
  }
  return value
}

const SORTABLE = new Set(['postDate', 'dateUpdated', 'title', 'slug', 'id', 'lft'])

function compareBy(orderBy: string): (a: StoredEntry, b: StoredEntry) => number {
  const parts = orderBy
    .split(',')
    .map((part) => part.trim().split(/\s+/))
    .map(([field = '', direction = 'ASC']) => ({ field, descending: direction.toUpperCase() === 'DESC' }))
    .filter(({ field }) => SORTABLE.has(field))
  return (a, b) => {
    for (const { field, descending } of parts) {
      const left = a[field as keyof StoredEntry] ?? ''
      const right = b[field as keyof StoredEntry] ?? ''
      const order = typeof left === 'number' && typeof right === 'number' ? left - right : String(left).localeCompare(String(right), 'nl')
      if (order !== 0) return descending ? -order : order
    }
    return 0
  }
}

interface SortedList {
  entries: readonly StoredEntry[]
  /** Each entry's place in `entries`, made when first asked for (adjacent). */
  places?: ReadonlyMap<StoredEntry, number>
  /** The post dates (ms) still to come when the list was sorted, ascending. */
  futurePosts: readonly number[]
}

/** Entries in a query's order: Craft's default is a Structure section's structure order, any other section's newest first. */
function sortEntries(entries: readonly StoredEntry[], orderBy: string | null | undefined): StoredEntry[] {
  const structured = entries.length > 0 && entries.every((entry) => entry.lft !== undefined)
  return [...entries].sort(compareBy(orderBy ?? (structured ? 'lft ASC' : 'postDate DESC')))
}

const isEntry = (entry: StoredEntry | undefined): entry is StoredEntry => entry !== undefined

/** When an entry was (or will be) posted, in ms; an entry without a post date counts as posted. */
function postedAt(entry: StoredEntry): number {
  const posted = entry.postDate === null ? Number.NaN : Date.parse(entry.postDate)
  return Number.isNaN(posted) ? Number.NEGATIVE_INFINITY : posted
}

const DATE_CRITERION = /^\s*(>=|<=|>|<|=|!=)?\s*(.+?)\s*$/

/** Whether a post date (ms) meets one of Craft's date criteria; a criterion that is no date meets nothing. */
function meetsDate(posted: number, criterion: string): boolean {
  const [, operator = '=', value = ''] = DATE_CRITERION.exec(criterion) ?? []
  const at = Date.parse(value)
  if (Number.isNaN(at)) return false
  switch (operator) {
    case '>=':
      return posted >= at
    case '<=':
      return posted <= at
    case '>':
      return posted > at
    case '<':
      return posted < at
    case '!=':
      return posted !== at
    default:
      return posted === at
  }
}

/** Whether an entry meets a `postDate` argument as Craft reads it: any of the criteria, or all of them after `"and"`. */
function meetsPostDate(entry: StoredEntry, criteria: readonly string[]): boolean {
  const posted = postedAt(entry)
  if (criteria[0]?.toLowerCase() === 'and') return criteria.slice(1).every((criterion) => meetsDate(posted, criterion))
  return criteria.some((criterion) => meetsDate(posted, criterion))
}

/** How many of the ascending values are at most `value`. */
function upperBound(values: readonly number[], value: number): number {
  let low = 0
  let high = values.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if ((values[mid] as number) <= value) low = mid + 1
    else high = mid
  }
  return low
}

/**
 * The content files of the embedded CMS in memory: live entries, drafts
 * reachable by preview token, assets and global sets of one site.
 */
export class ContentStore {
  readonly site: string
  private readonly live: StoredEntry[] = []
  private readonly drafts = new Map<string, StoredEntry[]>()
  private readonly assets = new Map<string, StoredAsset>()
  private readonly globalSets = new Map<string, StoredGlobalSet>()
  private readonly users = new Map<string, StoredUser>()
  private readonly draftEntries = new WeakSet<StoredEntry>()
  /** The indexes of the enabled live entries, rebuilt on each change (load). */
  private enabledLive: StoredEntry[] = []
  private readonly byId = new Map<string, StoredEntry>()
  private readonly bySection = new Map<string, StoredEntry[]>()
  /** By `section/slug`. */
  private readonly bySlug = new Map<string, StoredEntry[]>()
  private readonly byUri = new Map<string, StoredEntry[]>()
  private readonly draftsById = new Map<string, Map<string, StoredEntry>>()
  /** Sorted lists by sections and order, made when first asked for after a change (sortedList). */
  private readonly sorted = new Map<string, SortedList>()

  constructor(files: ContentFile[], site: string) {
    this.site = site
    this.load(files)
  }

  private load(files: ContentFile[]): void {
    for (const file of files.map((f) => replaceProduct(f, this.site))) {
      this.live.push(...(file.entries ?? []))
      for (const asset of file.assets ?? []) this.assets.set(asset.id, asset)
      for (const set of file.globalSets ?? []) this.globalSets.set(set.handle, set)
      for (const user of file.users ?? []) this.users.set(user.id, user)
      for (const { token, entry } of file.drafts ?? []) {
        this.draftEntries.add(entry)
        this.drafts.set(token, [...(this.drafts.get(token) ?? []), entry])
      }
    }
    this.index()
  }

  private index(): void {
    this.byId.clear()
    this.bySection.clear()
    this.bySlug.clear()
    this.byUri.clear()
    this.draftsById.clear()
    this.sorted.clear()
    this.enabledLive = this.live.filter((entry) => entry.enabled)
    const add = (map: Map<string, StoredEntry[]>, key: string, entry: StoredEntry): void => {
      const list = map.get(key)
      if (list) list.push(entry)
      else map.set(key, [entry])
    }
    for (const entry of this.enabledLive) {
      if (!this.byId.has(entry.id)) this.byId.set(entry.id, entry)
      add(this.bySection, entry.section, entry)
      add(this.bySlug, `${entry.section}/${entry.slug}`, entry)
      if (entry.uri !== null) add(this.byUri, entry.uri, entry)
    }
    for (const [token, drafts] of this.drafts) this.draftsById.set(token, new Map(drafts.map((draft) => [draft.id, draft])))
  }

  static readDirectory(dir: string): ContentFile[] {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as ContentFile)
  }

  static fromDirectory(dir: string, site: string): ContentStore {
    return new ContentStore(ContentStore.readDirectory(dir), site)
  }

  /** Swaps in new content; returns the entries (live or draft) that were added, changed or removed. */
  replace(files: ContentFile[]): StoredEntry[] {
    const before = this.snapshot()
    this.live.length = 0
    this.drafts.clear()
    this.assets.clear()
    this.globalSets.clear()
    this.users.clear()
    this.load(files)
    const after = this.snapshot()
    const changed: StoredEntry[] = []
    for (const [key, { entry, json }] of after) if (before.get(key)?.json !== json) changed.push(entry)
    for (const [key, { entry }] of before) if (!after.has(key)) changed.push(entry)
    return changed
  }

  private snapshot(): Map<string, { entry: StoredEntry; json: string }> {
    const all = new Map<string, { entry: StoredEntry; json: string }>()
    for (const entry of this.live) all.set(`live:${entry.id}`, { entry, json: JSON.stringify(entry) })
    for (const [token, drafts] of this.drafts) {
      for (const entry of drafts) all.set(`draft:${token}:${entry.id}`, { entry, json: JSON.stringify(entry) })
    }
    return all
  }

  isPreviewToken(token: string): boolean {
    return this.drafts.has(token)
  }

  /** Whether an entry is a draft (shown in place of its live version with a preview token). */
  isDraft(entry: StoredEntry): boolean {
    return this.draftEntries.has(entry)
  }

  usersByIds(ids: readonly string[] | undefined): StoredUser[] {
    return (ids ?? []).map((id) => this.users.get(id)).filter((user): user is StoredUser => user !== undefined)
  }

  /**
   * The enabled live entries of some sections (all sections for undefined)
   * in one order, sorted once per change of the content and kept until the
   * next (replace() clears them): a list query walks this list and stops at
   * its page. Pending entries stay in it and are passed over as the clock
   * reaches them (`futurePosts`).
   */
  private sortedList(sections: readonly string[] | undefined, orderBy: string | undefined): SortedList {
    const key = `${sections ? [...new Set(sections)].sort().join(',') : '*'}|${orderBy ?? ''}`
    let list = this.sorted.get(key)
    if (!list) {
      const entries = sections ? [...new Set(sections)].flatMap((section) => this.bySection.get(section) ?? []) : this.enabledLive
      const sortedEntries = sortEntries(entries, orderBy)
      const now = Date.now()
      const futurePosts = sortedEntries
        .map(postedAt)
        .filter((posted) => posted > now)
        .sort((a, b) => a - b)
      list = { entries: sortedEntries, futurePosts }
      this.sorted.set(key, list)
    }
    return list
  }

  /** The enabled live entries a query can match, narrowed by the indexes (by id, by section and slug, by section). */
  private candidates(query: EntryQuery): readonly StoredEntry[] {
    const few = query.id
      ? query.id.map((id) => this.byId.get(String(id))).filter(isEntry)
      : query.slug && query.section
        ? query.section.flatMap((section) => query.slug?.flatMap((slug) => this.bySlug.get(`${section}/${slug}`) ?? []) ?? [])
        : query.uri
          ? query.uri.flatMap((uri) => this.byUri.get(uri) ?? [])
          : undefined
    return few ? sortEntries(few, query.orderBy) : this.sortedList(query.section ?? undefined, query.orderBy ?? undefined).entries
  }

  /** Whether an entry matches a query's filters (the index it came from may have applied some already). */
  private matcher(query: EntryQuery): (entry: StoredEntry) => boolean {
    const matches = (values: string[] | null | undefined, value: string | null): boolean =>
      !values || (value !== null && values.includes(value))
    const related = query.relatedTo ? new Set(query.relatedTo.map(String)) : undefined
    const ids = query.id?.map(String)
    return (entry) =>
      matches(query.section, entry.section) &&
      matches(query.type, entry.type) &&
      matches(query.slug, entry.slug) &&
      matches(query.uri, entry.uri) &&
      matches(ids, entry.id) &&
      (!query.postDate || meetsPostDate(entry, query.postDate)) &&
      (!related || this.relatedIds(entry).some((id) => related.has(id)))
  }

  /**
   * The entries of a query, one page of them: from the indexes, without
   * copying or sorting the section (its list is sorted once per change), and
   * without pending entries (a post date still to come), as Craft's live
   * status leaves them out. A preview token's drafts take their live
   * versions' places (pending or disabled, as an editor previews them); that
   * one answer is sorted on its own.
   */
  findEntries(query: EntryQuery, token: string | undefined): StoredEntry[] {
    if (query.site && !query.site.includes(this.site)) return []
    const offset = Math.max(0, query.offset ?? 0)
    const limit = query.limit === null || query.limit === undefined || query.limit < 0 ? undefined : query.limit
    const wanted = limit === undefined ? Number.POSITIVE_INFINITY : offset + limit
    const matches = this.matcher(query)
    const now = Date.now()
    const drafts = token === undefined ? undefined : this.draftsById.get(token)
    const entries = this.candidates(query)
    if (!drafts) {
      const result: StoredEntry[] = []
      for (const entry of entries) {
        if (result.length >= wanted) break
        if (postedAt(entry) <= now && matches(entry)) result.push(entry)
      }
      return result.slice(offset)
    }
    const result = entries.map((entry) => drafts.get(entry.id) ?? entry).filter((entry) => (this.draftEntries.has(entry) || postedAt(entry) <= now) && matches(entry))
    const present = new Set(result.map((entry) => entry.id))
    for (const draft of drafts.values()) if (!present.has(draft.id) && matches(draft)) result.push(draft)
    return sortEntries(result, query.orderBy).slice(offset, limit === undefined ? undefined : offset + limit)
  }

  /**
   * Craft's `prev` and `next` of an entry: the one before or after it among
   * the entries of the criteria, in their order (a channel's newest first, so
   * `prev` is the newer one); null when there is none or the entry is not
   * among them.
   */
  adjacent(entry: StoredEntry, query: EntryQuery, token: string | undefined, step: -1 | 1): StoredEntry | null {
    const drafts = token === undefined ? undefined : this.draftsById.get(token)
    const bySectionOnly = !query.type && !query.slug && !query.uri && !query.id && !query.relatedTo && !query.postDate
    if (drafts || !bySectionOnly) {
      const all = this.findEntries({ ...query, limit: null, offset: null }, token)
      const at = all.findIndex((other) => other.id === entry.id)
      return at < 0 ? null : (all[at + step] ?? null)
    }
    // Every article page asks for its neighbours: from the section's sorted list and the entry's place in it, not a
    // walk of the whole section (3.5 ms a call at 10,000 articles, four calls a page).
    if (query.site && !query.site.includes(this.site)) return null
    const list = this.sortedList(query.section ?? undefined, query.orderBy ?? undefined)
    list.places ??= new Map(list.entries.map((listed, place) => [listed, place]))
    const at = list.places.get(entry)
    const now = Date.now()
    if (at === undefined || postedAt(entry) > now) return null
    for (let place = at + step; place >= 0 && place < list.entries.length; place += step) {
      const other = list.entries[place] as StoredEntry
      if (postedAt(other) <= now) return other
    }
    return null
  }

  /**
   * How many entries a query has (Craft's entryCount): for a query by
   * section alone, the section's size less its entries still pending, with
   * no list walked or sorted.
   */
  countEntries(query: EntryQuery, token: string | undefined): number {
    if (query.site && !query.site.includes(this.site)) return 0
    const bySectionOnly = !query.type && !query.slug && !query.uri && !query.id && !query.relatedTo && !query.postDate
    if (token === undefined || !this.draftsById.has(token)) {
      if (bySectionOnly) {
        const { entries, futurePosts } = this.sortedList(query.section ?? undefined, undefined)
        const now = Date.now()
        return entries.length - (futurePosts.length - upperBound(futurePosts, now))
      }
    }
    return this.findEntries({ ...query, limit: null, offset: null }, token).length
  }

  private relatedIds(entry: StoredEntry): string[] {
    return Object.values(entry.fields).flatMap((value) =>
      Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [],
    )
  }

  /** The entries of a relation field, in its order: by the id index, a preview token's drafts in their live versions' places. */
  entriesByIds(ids: unknown, token: string | undefined): StoredEntry[] {
    if (!Array.isArray(ids)) return []
    const drafts = token === undefined ? undefined : this.draftsById.get(token)
    return ids.map((id) => drafts?.get(String(id)) ?? this.byId.get(String(id))).filter(isEntry)
  }

  assetsByIds(ids: unknown): StoredAsset[] {
    if (!Array.isArray(ids)) return []
    return ids.map((id) => this.assets.get(String(id))).filter((asset): asset is StoredAsset => asset !== undefined)
  }

  globalSet(handle: string[] | null | undefined, site: string[] | null | undefined): StoredGlobalSet | null {
    if (site && !site.includes(this.site)) return null
    if (!handle) return this.globalSets.values().next().value ?? null
    return handle.map((h) => this.globalSets.get(h)).find((set) => set !== undefined) ?? null
  }
}
