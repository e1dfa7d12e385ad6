import './shared-chunk.ts'
import type { EntriesData } from '../../../shared/content-types.ts'
import type { PagePayload } from '../../../shared/payload.ts'

/**
 * Data of the deferred loaders, by loader key; null when it could not be
 * loaded. `json`, when set, is the same data as script-safe JSON, for the
 * script the browser hydrates it from, so it is not serialised again.
 */
export type DeferredData = Promise<Record<string, unknown> | null> & { readonly json?: string }

/** Deferred data already at hand, as a promise React's `use` reads without suspending; `json`: the same data as script-safe JSON. */
export function resolvedDeferred(data: Record<string, unknown> | null, json?: string): DeferredData {
  return Object.assign(Promise.resolve(data), { status: 'fulfilled' as const, value: data }, json === undefined ? {} : { json })
}

export interface ScreenProps {
  payload: PagePayload
  deferred: DeferredData | null
}

export function dataOf<T>(payload: PagePayload, key: string): T | undefined {
  return payload.data[key] as T | undefined
}

/** The entries of a list loader; none when the list is not in the payload. */
export function entriesOf<T>(payload: PagePayload, key: string): T[] {
  return dataOf<EntriesData<T>>(payload, key)?.entries ?? []
}
