import type { EntryBase } from '../../../shared/content-types.ts'
import { isUnpublished } from './format.ts'

export const DRAFT_MARKER_TEXT = 'Concept — nog niet gepubliceerd'

/** Said beside the title of an unpublished entry, so a preview of it never looks like the published page. */
export function DraftMarker({ entry }: { entry: Pick<EntryBase, 'isDraft' | 'status'> }) {
  return isUnpublished(entry) ? <p className="draft-marker">{DRAFT_MARKER_TEXT}</p> : null
}

