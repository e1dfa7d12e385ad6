import { RENDER_PROTOCOL_HEADER, RENDER_PROTOCOL_VERSION, type RenderSigner, contentDigest } from '../../shared/render-protocol/index.ts'

/**
 * A render request's headers signed as the gateway signs them, now (or at
 * the signer's clock): `headers` as they will be sent, in this release's
 * render protocol unless they name another, with the signing time, a nonce
 * and the signature added. A body is signed by its digest.
 */
export function signedHeaders(signer: RenderSigner, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Record<string, string> {
  const sent = { [RENDER_PROTOCOL_HEADER]: RENDER_PROTOCOL_VERSION, ...headers }
  return { ...sent, ...signer.signing(method, path, sent, body === undefined ? undefined : contentDigest(body)) }
}
