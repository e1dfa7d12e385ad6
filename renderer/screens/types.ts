import type { PagePayload } from '../../shared/payload.ts'

/** Data of the deferred loaders, by loader key; null when it could not be loaded. */
export type DeferredData = Promise<Record<string, unknown> | null>

export interface ScreenProps {
  payload: PagePayload
  deferred: DeferredData | null
}

export function dataOf<T>(payload: PagePayload, key: string): T | undefined {
  return payload.data[key] as T | undefined
}
