import type { PagePayload } from '../../shared/payload.ts'
import { subscribeToChanges } from './live-updates.ts'
import type { PayloadLoader } from './payload-loader.ts'

/**
 * Live preview: whenever the CMS says content changed, `show` gets a fresh
 * payload of the address on screen, with its path and query. Imported only by
 * a page in preview, so this (and graphql-ws behind it) is no part of a
 * visitor's first load.
 */
export function refreshOnChanges(url: string, token: string, loader: PayloadLoader, show: (key: string, payload: PagePayload) => void): () => void {
  return subscribeToChanges(url, token, () => {
    const { pathname, search } = window.location
    loader.refresh(pathname, search).then(
      (payload) => show(`${pathname}${search}`, payload),
      (error: unknown) => console.warn('[live] could not reload the page data', error),
    )
  })
}
