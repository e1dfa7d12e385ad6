import type { RouteTable } from '../../shared/routes.ts'
import type { ContentService, RunContext } from '../craft/content-service.ts'
import { SITEMAP_GROUPS, type SitemapBuilder, type SitemapEntry, sitemapVariables } from './sitemap.ts'

/** Longest path compared: past it, a path is no typo of any page (the longest slug is 96 characters). */
export const MAX_COMPARED_PATH = 128
/** Most addresses compared for one 404: a stranger's guess costs at most this many bounded comparisons. */
export const MAX_COMPARED_ADDRESSES = 400
/** Most edits a suggestion may be away, however long the path. */
const MAX_EDITS = 3

/** Edits allowed for a text of this length: one per four characters, at least one, at most MAX_EDITS. */
export const editsAllowed = (length: number): number => Math.min(MAX_EDITS, Math.max(1, Math.floor(length / 4)))

const rows = [new Int32Array(MAX_COMPARED_PATH + 2), new Int32Array(MAX_COMPARED_PATH + 2)] as const

/**
 * The Levenshtein distance of two texts of at most MAX_COMPARED_PATH
 * characters when it is at most `max`, else `max + 1`: only the cells
 * within `max` of the diagonal are worked out (Ukkonen's band), and it
 * stops at a row that is past `max` everywhere.
 */
export function distanceWithin(a: string, b: string, max: number): number {
  const over = max + 1
  if (Math.abs(a.length - b.length) > max || a.length > MAX_COMPARED_PATH || b.length > MAX_COMPARED_PATH) return over
  // What both begin and end with costs no edit: only the rest is compared (`/actueel/premies-2027-uitgeleg` against `…uitgelegd`: "" and "d").
  let start = 0
  while (start < a.length && start < b.length && a.charCodeAt(start) === b.charCodeAt(start)) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--
    endB--
  }
  const n = endA - start
  const m = endB - start
  if (n === 0 || m === 0) return n + m < over ? n + m : over
  let prev = rows[0]
  let cur = rows[1]
  for (let j = 0; j <= m; j++) prev[j] = j < over ? j : over
  for (let i = 1; i <= n; i++) {
    const from = i - max > 1 ? i - max : 1
    const to = i + max < m ? i + max : m
    const code = a.charCodeAt(start + i - 1)
    let left = from === 1 && i < over ? i : over
    cur[from - 1] = left
    let least = left
    for (let j = from; j <= to; j++) {
      let value = (prev[j - 1] as number) + (code === b.charCodeAt(start + j - 1) ? 0 : 1)
      const up = (prev[j] as number) + 1
      if (up < value) value = up
      if (left + 1 < value) value = left + 1
      if (value > over) value = over
      cur[j] = value
      left = value
      if (value < least) least = value
    }
    if (to < m) cur[to + 1] = over
    if (least > max) return over
    const swap = prev
    prev = cur
    cur = swap
  }
  const last = prev[m] as number
  return last < over ? last : over
}

interface Candidate {
  path: string
  /** Its last segment, for a path typed without its section (`/reisverzekering`). */
  last: string
}

/** The addresses by length, of the whole path and of its last segment, so a guess is compared only with those near its length. */
interface AddressIndex {
  byLength: Map<number, Candidate[]>
  byLastLength: Map<number, Candidate[]>
}

const lastSegment = (path: string): string => path.slice(path.lastIndexOf('/') + 1)

function indexOf(paths: Iterable<string>): AddressIndex {
  const index: AddressIndex = { byLength: new Map(), byLastLength: new Map() }
  const add = (map: Map<number, Candidate[]>, length: number, candidate: Candidate) => {
    const list = map.get(length)
    if (list) list.push(candidate)
    else map.set(length, [candidate])
  }
  for (const path of new Set(paths)) {
    // The home page is on every 404 already; any other address is a candidate.
    if (path === '/' || path.length > MAX_COMPARED_PATH) continue
    const candidate = { path, last: lastSegment(path) }
    add(index.byLength, path.length, candidate)
    if (path.indexOf('/', 1) !== -1) add(index.byLastLength, candidate.last.length, candidate)
  }
  return index
}

/**
 * The page a mistyped address most likely meant: the nearest by edit
 * distance among the sitemap's addresses, those of the route table and of
 * the `Sitemap` answers the pages' cache holds (never asked for here: a 404
 * costs no CMS call for its suggestion). A path typed without its section
 * is compared by its last segment too.
 */
export class NearestPages {
  private readonly always: string[]
  /** Each sitemap group's variables, made once: every 404 looks its answer up. */
  private readonly groups: Record<string, unknown>[]
  private lastAnswers: (object | undefined)[] = []
  private index: AddressIndex
  /** Addresses compared for the last suggestion: at most MAX_COMPARED_ADDRESSES. */
  compared = 0

  constructor(
    routes: RouteTable,
    private readonly content: ContentService,
    private readonly sitemap: SitemapBuilder,
  ) {
    this.always = routes.canonicalStaticPaths()
    this.groups = SITEMAP_GROUPS.map((group) => sitemapVariables(group, routes.product))
    this.index = indexOf(this.always)
  }

  /** The suggestion for a path that is no page; null when no address is near enough. */
  suggest(path: string, context: RunContext): string | null {
    this.compared = 0
    if (path.length > MAX_COMPARED_PATH) return null
    const typed = path.toLowerCase()
    const { byLength, byLastLength } = this.addresses(context)
    let best: { path: string; edits: number } | undefined
    let budget = MAX_COMPARED_ADDRESSES
    const compare = (map: Map<number, Candidate[]>, text: string, of: (candidate: Candidate) => string) => {
      const max = editsAllowed(text.length)
      for (let length = text.length - max; length <= text.length + max && budget > 0; length++) {
        for (const candidate of map.get(length) ?? []) {
          if (budget-- <= 0) return
          this.compared++
          const limit = Math.min(max, (best?.edits ?? max + 1) - 1)
          const edits = limit < 0 ? limit + 1 : distanceWithin(text, of(candidate), limit)
          // The path itself is no suggestion; its lower case is (a payload of `/Kantoren`: its page redirects there).
          if (edits <= limit && candidate.path !== path) best = { path: candidate.path, edits }
        }
      }
    }
    compare(byLength, typed, (candidate) => candidate.path)
    const last = lastSegment(typed)
    if (!best && typed.indexOf('/', 1) === -1 && last.length > 0) compare(byLastLength, last, (candidate) => candidate.last)
    return best?.path ?? null
  }

  /** The index of the addresses known now: made again when the cache holds other `Sitemap` answers. */
  private addresses(context: RunContext): AddressIndex {
    if (context.preview) return this.index
    const answers = this.groups.map((variables) => this.content.cachedNamed('Sitemap', variables, context)?.body)
    if (answers.every((answer, i) => answer === this.lastAnswers[i])) return this.index
    this.lastAnswers = answers
    const paths = [...this.always]
    for (const answer of answers) {
      const entries = answer?.errors === undefined ? (answer?.data?.entries as SitemapEntry[] | undefined) : undefined
      if (!Array.isArray(entries)) continue
      for (const entry of entries) {
        const path = this.sitemap.pathOf(entry)
        if (path !== undefined) paths.push(path)
      }
    }
    this.index = indexOf(paths)
    return this.index
  }
}
