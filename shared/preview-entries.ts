/**
 * Whether a value holds an entry that a preview shows other than visitors see
 * it: a draft (Craft's `isDraft`, which is `draftId !== null`, provisional
 * drafts included), a revision (`revisionId`), or an entry whose `status` is
 * not `live` (disabled, pending, expired, or a new entry's `enabled` draft).
 * Every document selects these on every entry (operations.ts); an object
 * without `isDraft` is no entry (a global set, a user, an asset).
 */
export function showsPreviewEntry(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(showsPreviewEntry)
  if (value === null || typeof value !== 'object') return false
  const record = value as Record<string, unknown>
  if (typeof record.isDraft === 'boolean') {
    if (record.isDraft || typeof record.revisionId === 'number' || (typeof record.status === 'string' && record.status !== 'live')) return true
  }
  return Object.values(record).some(showsPreviewEntry)
}
