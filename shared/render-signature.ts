import { type KeyObject, createHmac, createSecretKey, timingSafeEqual } from 'node:crypto'

/**
 * Signs and checks render requests with the secret the gateway and its
 * renderers share (RENDER_SECRET): HMAC-SHA256, base64url, over the method,
 * the path with query as sent, and the body (as text or as the bytes it
 * travels in: the same HMAC either way). Neither a method nor a request
 * target holds a space or a line break, so the three cannot run into each other.
 */
export class RenderSigner {
  private readonly key: KeyObject

  constructor(secret: string) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'))
  }

  sign(method: string, pathWithQuery: string, body: string | Buffer = ''): string {
    return createHmac('sha256', this.key).update(`${method} ${pathWithQuery}\n`).update(body).digest('base64url')
  }

  /** Whether `signature` is this request's, compared in constant time. */
  verify(method: string, pathWithQuery: string, body: string | Buffer, signature: unknown): boolean {
    if (typeof signature !== 'string') return false
    const expected = Buffer.from(this.sign(method, pathWithQuery, body))
    const given = Buffer.from(signature)
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
}

/** Shortest RENDER_SECRET either service accepts. */
export const RENDER_SECRET_MIN_LENGTH = 16
