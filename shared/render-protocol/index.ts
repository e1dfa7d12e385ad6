/**
 * The render exchange between the gateway and its renderers, in one place:
 * the request's body and its kept-data references (request-body.ts), its
 * signature (signature.ts), the version both sides speak (version.ts), the
 * tags the answer carries (tags.ts), and the names of the headers and the
 * trailer that travel with it.
 */
export * from './request-body.ts'
export * from './signature.ts'
export * from './tags.ts'
export * from './version.ts'
export { RENDER_OUTCOME_TRAILER, RENDER_SIGNATURE_HEADER, RENDERER_BUILD_HEADER } from '../constants.ts'
