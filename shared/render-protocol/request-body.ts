import type { PagePayload } from '../payload.ts'
import { scriptSafe } from '../script-json.ts'
import { MAX_RENDER_TAGS } from './tags.ts'

/**
 * A render request's body: the page's payload as JSON on the first line, the
 * cache tags of the data sent (a JSON array of strings) on the second, the
 * data of its deferred loaders on the third when the gateway had it at once.
 * JSON text never holds a raw line break, so the lines split unambiguously,
 * and the renderer embeds the payload's line in the page as it came, without
 * serialising the payload again.
 */
export const RENDER_REQUEST_CONTENT_TYPE = 'application/x-ndjson'

/**
 * A render request that names its data instead of carrying it: the body is
 * the digest (contentDigest, signature.ts) of the body of a full render
 * request for the same path that this renderer already took and verified,
 * and the request is signed like any other. A renderer that no longer holds
 * the data answers RENDER_DATA_UNKNOWN_STATUS with the code
 * RENDER_DATA_UNKNOWN, and the gateway sends the full body again. Needs
 * RENDER_SECRET: an unsigned reference would let anyone name what a
 * renderer kept.
 */
export const RENDER_REFERENCE_CONTENT_TYPE = 'application/x-render-reference'
export const RENDER_DATA_UNKNOWN = 'RENDER_DATA_UNKNOWN'
/** A reference's body is a digest, 43 characters of base64url: a renderer refuses anything much longer. */
export const RENDER_REFERENCE_BODY_LIMIT_BYTES = 256
export const RENDER_DATA_UNKNOWN_STATUS = 409
/**
 * Set by a renderer on its answer to a full render request whose data it
 * kept: only then does the gateway send it references to that body (a
 * renderer without RENDER_SECRET keeps nothing, and keeps getting bodies).
 */
export const RENDER_DATA_KEPT_HEADER = 'x-render-data-kept'

export interface RenderRequest {
  payload: PagePayload
  /** The payload as script-safe JSON, for the page's payload script. */
  payloadJson: string
  /** The cache tags of the data sent (payload and deferred data), as the gateway built them. */
  tags: readonly string[]
  /** Data of the deferred loaders, when handed over; otherwise the renderer asks for it. */
  deferred?: Record<string, unknown>
  /** The same data as script-safe JSON, as it came: embedded as it is while cleaning leaves the data unchanged. */
  deferredJson?: string
}

export function encodeRenderRequest(payloadJson: string, tags: readonly string[], deferredJson?: string): string {
  const head = `${payloadJson}\n${JSON.stringify(tags)}`
  return deferredJson === undefined ? head : `${head}\n${deferredJson}`
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isPayload(value: unknown): value is PagePayload {
  return (
    isObject(value) &&
    typeof value.path === 'string' &&
    typeof value.fullPath === 'string' &&
    typeof value.screen === 'string' &&
    typeof value.status === 'number' &&
    isObject(value.data) &&
    Array.isArray(value.pending) &&
    typeof value.preview === 'boolean'
  )
}

function isTags(value: unknown): value is string[] {
  return Array.isArray(value) && value.length <= MAX_RENDER_TAGS && value.every((tag) => typeof tag === 'string' && tag.length > 0 && !tag.includes(','))
}

/** The lines of a body: up to three, the first two required. */
function linesOf(body: string): [string, string, string | undefined] | undefined {
  const first = body.indexOf('\n')
  if (first === -1) return undefined
  const second = body.indexOf('\n', first + 1)
  if (second === -1) return [body.slice(0, first), body.slice(first + 1), undefined]
  return [body.slice(0, first), body.slice(first + 1, second), body.slice(second + 1)]
}

/** The render request in a body; undefined when it is not one (not JSON, not a payload, tags that are not a list of names). */
export function decodeRenderRequest(body: string): RenderRequest | undefined {
  const lines = linesOf(body)
  if (!lines) return undefined
  const [payloadText, tagsText, deferredText] = lines
  let payload: unknown
  let tags: unknown
  let deferred: unknown
  try {
    payload = JSON.parse(payloadText)
    tags = JSON.parse(tagsText)
    if (deferredText !== undefined) deferred = JSON.parse(deferredText)
  } catch {
    return undefined
  }
  if (!isPayload(payload) || !isTags(tags)) return undefined
  // Made safe here too: the renderer does not take the sender's word for it.
  const decoded = { payload, payloadJson: scriptSafe(payloadText), tags }
  if (deferredText === undefined) return decoded
  return isObject(deferred) ? { ...decoded, deferred, deferredJson: scriptSafe(deferredText) } : undefined
}
