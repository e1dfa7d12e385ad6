import { type RenderSigner, contentDigest } from '../../shared/render-signature.ts'

/**
 * A render request's headers signed as the gateway signs them, now (or at
 * the signer's clock): `headers` as they will be sent, with the signing time,
 * a nonce and the signature added. A body is signed by its digest.
 */
export function signedHeaders(signer: RenderSigner, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Record<string, string> {
  return { ...headers, ...signer.signing(method, path, headers, body === undefined ? undefined : contentDigest(body)) }
}
