import type { PagePayload } from './payload.ts'
import { scriptSafe } from './script-json.ts'

/**
 * A render request's body: the page's payload as JSON on the first line, the
 * data of its deferred loaders on the second when the gateway had it at once.
 * JSON text never holds a raw line break, so the lines split unambiguously,
 * and the renderer embeds the payload's line in the page as it came, without
 * serialising the payload again.
 */
export const RENDER_REQUEST_CONTENT_TYPE = 'application/x-ndjson'

/**
 * A render request that names its data instead of carrying it: the body is
 * the digest (contentDigest, shared/render-signature.ts) of the body of a
 * full render request for the same path that this renderer already took and
 * verified, and the request is signed like any other. A renderer that no longer holds the
 * data answers RENDER_DATA_UNKNOWN_STATUS with the code RENDER_DATA_UNKNOWN,
 * and the gateway sends the full body again; a renderer that predates
 * references answers 415, and gets full bodies. Needs RENDER_SECRET: an
 * unsigned reference would let anyone name what a renderer kept.
 */
export const RENDER_REFERENCE_CONTENT_TYPE = 'application/x-render-reference'
export const RENDER_DATA_UNKNOWN = 'RENDER_DATA_UNKNOWN'
/** A reference's body is a digest, 43 characters of base64url: a renderer refuses anything much longer. */
export const RENDER_REFERENCE_BODY_LIMIT_BYTES = 256
export const RENDER_DATA_UNKNOWN_STATUS = 409
/**
 * Set by a renderer on its answer to a full render request whose data it
 * kept: only then does the gateway send it references to that body. A
 * renderer that predates references never sets it, and keeps getting full bodies.
 */
export const RENDER_DATA_KEPT_HEADER = 'x-render-data-kept'

export interface RenderRequest {
  payload: PagePayload
  /** The payload as script-safe JSON, for the page's payload script. */
  payloadJson: string
  /** Data of the deferred loaders, when handed over; otherwise the renderer asks for it. */
  deferred?: Record<string, unknown>
  /** The same data as script-safe JSON, as it came: embedded as it is while cleaning leaves the data unchanged. */
  deferredJson?: string
}

export function encodeRenderRequest(payloadJson: string, deferredJson?: string): string {
  return deferredJson === undefined ? payloadJson : `${payloadJson}\n${deferredJson}`
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

/** The render request in a body; undefined when it is not one (not JSON, or not a payload). */
export function decodeRenderRequest(body: string): RenderRequest | undefined {
  const cut = body.indexOf('\n')
  const payloadText = cut === -1 ? body : body.slice(0, cut)
  const deferredText = cut === -1 ? undefined : body.slice(cut + 1)
  let payload: unknown
  let deferred: unknown
  try {
    payload = JSON.parse(payloadText)
    if (deferredText !== undefined) deferred = JSON.parse(deferredText)
  } catch {
    return undefined
  }
  if (!isPayload(payload)) return undefined
  // Made safe here too: the renderer does not take the sender's word for it.
  const decoded = { payload, payloadJson: scriptSafe(payloadText) }
  if (deferredText === undefined) return decoded
  return isObject(deferred) ? { ...decoded, deferred, deferredJson: scriptSafe(deferredText) } : undefined
}
