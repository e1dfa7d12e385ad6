import { PREVIEW_QUERY_PARAMS, PREVIEW_TOKEN_QUERY_PARAM, TOKEN_STORAGE_KEY } from '../../shared/constants.ts'

/** The preview token of a URL's query: only with x-craft-preview or x-craft-live-preview. */
export function previewTokenOf(search: string): string | undefined {
  const params = new URLSearchParams(search)
  if (!PREVIEW_QUERY_PARAMS.some((name) => params.has(name))) return undefined
  return params.get(PREVIEW_TOKEN_QUERY_PARAM) ?? undefined
}

function storage(): Storage | undefined {
  try {
    return window.localStorage
  } catch {
    return undefined
  }
}

/**
 * The token data requests carry: a preview token from the address wins over
 * the stored one, which is then removed; once the page has loaded, the
 * preview token becomes the stored login token.
 */
export function setUpToken(search: string): () => string | undefined {
  const preview = previewTokenOf(search)
  let token = preview ?? storage()?.getItem(TOKEN_STORAGE_KEY) ?? undefined
  if (preview) {
    storage()?.removeItem(TOKEN_STORAGE_KEY)
    const store = (): void => {
      storage()?.setItem(TOKEN_STORAGE_KEY, preview)
      token = preview
    }
    if (document.readyState === 'complete') store()
    else window.addEventListener('load', store, { once: true })
  }
  return () => token
}
