/**
 * The version of the render exchange (request body, kept-data references,
 * the answer's tags) that this build's gateway and renderer speak. Every
 * render request names it and every renderer answer says it; a renderer
 * refuses a request of another version (RENDER_PROTOCOL_MISMATCH), and the
 * gateway sends its renders to the renderers of its own version. Raised
 * whenever either side would misread the other.
 */
export const RENDER_PROTOCOL_VERSION = '2'
export const RENDER_PROTOCOL_HEADER = 'x-render-protocol'
export const RENDER_PROTOCOL_MISMATCH = 'RENDER_PROTOCOL_MISMATCH'
/**
 * A mismatched request's status: 503 with a JSON body, which gateways of the
 * release before the version skip as a closing renderer's answer, trying the
 * next renderer (they know no other way round a renderer); gateways that
 * know the version read the header and do the same without marking it down.
 */
export const RENDER_PROTOCOL_MISMATCH_STATUS = 503

/** Whether an answer (or a health check) came from a renderer of this version. */
export function speaksThisVersion(value: unknown): boolean {
  return value === RENDER_PROTOCOL_VERSION
}
