import { BadRequestError } from '../errors.ts'
import type { KnownEntry } from '../craft/known-entries.ts'
import { TAG_PATTERN, entryTag } from './cache-tags.ts'

/**
 * One editor's save (or delete) of an entry, as Craft's webhook tells it
 * (docs/craft.md): `{"entry": {"event": "save", "id": 12, "section":
 * "topical", "isNew": false, "postDate": "…", "slug": "…", "status": "live"}}`.
 */
export interface SavedEntry {
  event: 'save' | 'delete'
  id: string
  section: string
  isNew: boolean
  /** Left out, the entry's place in its lists is not known: its lists are purged. */
  postDate: string | null | undefined
  slug: string | null | undefined
  status: string | null | undefined
}

/** What a save purges: tags now, and the post date whose neighbours in the section are purged too, once asked for. */
export interface SavePurgePlan {
  tags: string[]
  /** The entry joined its section's order at this date: the entries next to it there show it now. */
  neighboursAt?: string
  /** Why the section's lists are purged, for the log; undefined when they are not. */
  listsBecause?: string
}

const ID = /^[0-9]{1,20}$/
const MAX_TEXT = 200

function optionalText(value: unknown, name: string): string | null | undefined {
  if (value === undefined || value === null) return value
  if (typeof value !== 'string' || value.length > MAX_TEXT) throw new BadRequestError(`entry.${name} must be a string of at most ${MAX_TEXT} characters`)
  return value
}

/** The `entry` of a purge's body, checked: a wrong one is refused whole (400) and purges nothing. */
export function parseSavedEntry(value: unknown): SavedEntry {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new BadRequestError('entry must be a JSON object')
  const body = value as Record<string, unknown>
  const event = body.event ?? 'save'
  if (event !== 'save' && event !== 'delete') throw new BadRequestError('entry.event must be "save" or "delete"')
  const id = typeof body.id === 'number' && Number.isSafeInteger(body.id) ? String(body.id) : body.id
  if (typeof id !== 'string' || !ID.test(id)) throw new BadRequestError('entry.id must be an entry id such as 123')
  if (typeof body.section !== 'string' || !TAG_PATTERN.test(body.section) || body.section.includes(':')) throw new BadRequestError('entry.section must be a section handle')
  if (body.isNew !== undefined && typeof body.isNew !== 'boolean') throw new BadRequestError('entry.isNew must be true or false')
  const postDate = optionalText(body.postDate, 'postDate')
  if (typeof postDate === 'string' && Number.isNaN(Date.parse(postDate))) throw new BadRequestError('entry.postDate must be a date such as 2026-12-02T09:00:00+01:00')
  return { event, id, section: body.section, isNew: body.isNew === true, postDate, slug: optionalText(body.slug, 'slug'), status: optionalText(body.status, 'status') }
}

const sameDate = (a: string | null | undefined, b: string | null | undefined): boolean =>
  a === b || (typeof a === 'string' && typeof b === 'string' && Date.parse(a) === Date.parse(b))

/** Why the saved entry's place in its section's lists may have changed since the answers last showed it; undefined when it has not. */
function moved(saved: SavedEntry, known: KnownEntry | undefined): string | undefined {
  if (saved.event === 'delete') return 'deleted'
  if (saved.isNew) return 'new'
  if (!known) return 'not seen in any cached answer'
  if (known.section !== saved.section) return 'another section'
  if (saved.postDate === undefined) return 'no post date given'
  if (known.postDate !== undefined && !sameDate(known.postDate, saved.postDate)) return 're-dated'
  if (saved.slug !== undefined && known.slug !== undefined && known.slug !== saved.slug) return 'new address'
  if (saved.status !== undefined && known.status !== undefined && known.status !== saved.status) return `status ${known.status ?? 'none'} to ${saved.status ?? 'none'}`
  return undefined
}

/**
 * What one save changes, by what the pages show (docs/caching.md):
 * - always the entry's tag: its own page, and every page that shows it in a
 *   list (an overview page, the home page's news, its neighbours' "Meer
 *   nieuws", its sitemap group);
 * - and, when it is new, deleted, re-dated, moved to another address or
 *   section or in or out of the live status (or the gateway has no answer
 *   that showed it), its section's lists (the section's tag, which only
 *   lists and lookups that found nothing carry), and for a live entry with
 *   a post date the entries next to its new place (`neighboursAt`).
 * A text change of an entry already shown is thus a handful of pages,
 * whatever the section's size.
 */
export function savePurgePlan(saved: SavedEntry, known: KnownEntry | undefined): SavePurgePlan {
  const tags = [entryTag(saved.id)]
  const because = moved(saved, known)
  if (because === undefined) return { tags }
  tags.push(saved.section)
  if (known && known.section !== saved.section) tags.push(known.section)
  const live = saved.status === undefined || saved.status === null || saved.status === 'live'
  const neighboursAt = saved.event === 'save' && live && typeof saved.postDate === 'string' ? saved.postDate : undefined
  return neighboursAt === undefined ? { tags, listsBecause: because } : { tags, neighboursAt, listsBecause: because }
}

/** The EntriesAround answer's ids, but the saved entry's: the nearest newer and the nearest older entry. */
export function neighbourTags(data: unknown, savedId: string): string[] {
  const record = (data ?? {}) as { newer?: unknown; older?: unknown }
  const first = (list: unknown): string | undefined => {
    if (!Array.isArray(list)) return undefined
    for (const item of list as { id?: unknown }[]) {
      const id = item?.id
      if ((typeof id === 'string' || typeof id === 'number') && String(id) !== savedId && ID.test(String(id))) return String(id)
    }
    return undefined
  }
  return [first(record.newer), first(record.older)].filter((id): id is string => id !== undefined).map(entryTag)
}
