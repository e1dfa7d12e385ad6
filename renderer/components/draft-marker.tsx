import type { EntryBase } from '../../shared/content-types.ts'
import { formatDate } from './format.ts'

export const DRAFT_MARKER_TEXT = 'Concept — nog niet gepubliceerd'

/**
 * Whether a preview shows an entry as visitors do not see it: a draft
 * (`isDraft`, of a published entry or of one never published), or an entry
 * whose status is not `live`. Craft's status of an entry is `live` only when
 * it is enabled and its post date has come (craftcms/cms Entry::getStatus);
 * otherwise `disabled`, `pending`, `expired`, or `enabled` without a post date.
 */
export function isUnpublished(entry: Pick<EntryBase, 'isDraft' | 'status'>): boolean {
  return entry.isDraft === true || (entry.status != null && entry.status !== 'live')
}

/** Said beside the title of an unpublished entry, so a preview of it never looks like the published page. */
export function DraftMarker({ entry }: { entry: Pick<EntryBase, 'isDraft' | 'status'> }) {
  return isUnpublished(entry) ? <p className="draft-marker">{DRAFT_MARKER_TEXT}</p> : null
}

/**
 * The date an entry was published, when it was: an unpublished entry's post
 * date (none, one an editor set ahead, or the published version's under a
 * draft) is no publication date of what the page shows.
 */
export function publicationDate(entry: Pick<EntryBase, 'isDraft' | 'status' | 'postDate'>): { iso: string; text: string } | undefined {
  if (isUnpublished(entry) || !entry.postDate) return undefined
  const text = formatDate(entry.postDate)
  return text ? { iso: entry.postDate, text } : undefined
}

export const NOT_PUBLISHED_TEXT = 'Nog niet gepubliceerd'

/**
 * An entry's date in a list (the home page's latest news, /actueel): its
 * publication date, or, in a preview of an entry not published (a draft, a
 * post date still to come), that it is not, never the date it may get.
 */
export function PublishedOn({ entry }: { entry: Pick<EntryBase, 'isDraft' | 'status' | 'postDate'> }) {
  const published = publicationDate(entry)
  if (published) return <time dateTime={published.iso}>{published.text}</time>
  return isUnpublished(entry) ? <>{NOT_PUBLISHED_TEXT}</> : null
}
