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

  /** Live entries, with the drafts of a valid preview token in place of their live versions. */
  private visibleEntries(token: string | undefined): StoredEntry[] {
    const drafts = token === undefined ? undefined : this.drafts.get(token)
    if (!drafts) return this.live.filter((entry) => entry.enabled)
    const byId = new Map(this.live.map((entry) => [entry.id, entry]))
    for (const draft of drafts) byId.set(draft.id, draft)
    return [...byId.values()].filter((entry) => entry.enabled || drafts.includes(entry))
  }

  findEntries(query: EntryQuery, token: string | undefined): StoredEntry[] {
    if (query.site && !query.site.includes(this.site)) return []
    const matches = (values: string[] | null | undefined, value: string | null): boolean =>
      !values || (value !== null && values.includes(value))
    const related = query.relatedTo ? new Set(query.relatedTo.map(String)) : undefined
    let result = this.visibleEntries(token).filter(
      (entry) =>
        matches(query.section, entry.section) &&
        matches(query.type, entry.type) &&
        matches(query.slug, entry.slug) &&
        matches(query.uri, entry.uri) &&
        matches(query.id?.map(String), entry.id) &&
        (!related || this.relatedIds(entry).some((id) => related.has(id))),
    )
    // Craft's default: a Structure section's entries in structure order, any other section's newest first.
    const structured = result.length > 0 && result.every((entry) => entry.lft !== undefined)
    result = [...result].sort(compareBy(query.orderBy ?? (structured ? 'lft ASC' : 'postDate DESC')))
    const offset = Math.max(0, query.offset ?? 0)
    const limit = query.limit === null || query.limit === undefined || query.limit < 0 ? undefined : query.limit
    return result.slice(offset, limit === undefined ? undefined : offset + limit)
  }

  private relatedIds(entry: StoredEntry): string[] {
    return Object.values(entry.fields).flatMap((value) =>
      Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [],
    )
  }

  entriesByIds(ids: unknown, token: string | undefined): StoredEntry[] {
    if (!Array.isArray(ids)) return []
    const visible = new Map(this.visibleEntries(token).map((entry) => [entry.id, entry]))
    return ids.map((id) => visible.get(String(id))).filter((entry): entry is StoredEntry => entry !== undefined)
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
