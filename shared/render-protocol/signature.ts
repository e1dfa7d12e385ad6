import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { CRAFT_TOKEN_HEADER, LIVE_PREVIEW_HEADER, RENDER_SIGNATURE_HEADER } from '../constants.ts'
import { type Env, readSecret } from '../env.ts'
import { ConfigError } from '../errors.ts'
import { RENDER_PROTOCOL_HEADER } from './version.ts'

/**
 * RENDER_SECRET (or RENDER_SECRET_FILE), required when REQUIRE_RENDER_SECRET
 * is true; both services read it the same way (their settings tables
 * document it).
 */
export function readRenderSecret(env: Env, required: boolean): string | undefined {
  const secret = readSecret(env, 'RENDER_SECRET', RENDER_SECRET_MIN_LENGTH)
  if (secret === undefined && required) throw new ConfigError('RENDER_SECRET (or RENDER_SECRET_FILE) is required: REQUIRE_RENDER_SECRET is set')
  return secret
}

/** When the gateway signed a render request, in milliseconds since the epoch: the renderer refuses one signed too long ago. */
export const RENDER_SIGNED_AT_HEADER = 'x-render-signed-at'
/** Unique to one render request, so that two renders of a page signed in the same millisecond differ and a replay of either is known. */
export const RENDER_NONCE_HEADER = 'x-render-nonce'

/**
 * The headers a render request is signed with: its time and nonce, and every
 * header the renderer reads to decide what it renders (the protocol version,
 * the body's type, the user agent that makes a crawler's page, the preview
 * token, live preview's mark). A header the
 * renderer comes to read must be added here. `x-request-id` only names the
 * request in logs, and `accept` and `host` are not read.
 */
export const RENDER_SIGNED_HEADERS = [RENDER_SIGNED_AT_HEADER, RENDER_NONCE_HEADER, RENDER_PROTOCOL_HEADER, 'content-type', 'user-agent', CRAFT_TOKEN_HEADER, LIVE_PREVIEW_HEADER] as const

/** Headers as Node and undici hold them. */
export type HeaderValues = Readonly<Record<string, string | readonly string[] | number | undefined>>

/** What a render request's signature covers. */
export interface SignedParts {
  method: string
  /** The path with query as sent. */
  path: string
  headers: HeaderValues
  /** contentDigest of the body as it travels; EMPTY_CONTENT_DIGEST without one. */
  digest: string
}

/** SHA-256 of a body, base64url: what a signature covers of it, and the name a renderer keeps a body's data by. */
export function contentDigest(body: string | Buffer): string {
  return createHash('sha256').update(body).digest('base64url')
}

export const EMPTY_CONTENT_DIGEST = contentDigest('')

/**
 * A header's value as signed: absent is signed as absent (the name alone),
 * so that nobody can add it; a value without the blanks HTTP drops at its
 * ends, so that it signs the same on both sides of the wire. HTTP forbids
 * line breaks in values, so lines cannot run into each other.
 */
function headerLine(name: string, value: HeaderValues[string]): string {
  if (value === undefined) return `${name}\n`
  const text = Array.isArray(value) ? value.join(', ') : String(value)
  return `${name}: ${text.trim()}\n`
}

/**
 * Signs and checks render requests with the secret the gateway and its
 * renderers share (RENDER_SECRET): HMAC-SHA256, base64url, over the method and
 * the path with query as sent (neither holds a space or a line break), the
 * headers of RENDER_SIGNED_HEADERS in that order, one line each, and the
 * body's SHA-256. The body is signed by its digest so that the gateway
 * digests a kept body once, and signs each request afresh over a few lines.
 */
export class RenderSigner {
  /**
   * The secret's bytes. A Buffer, not a KeyObject: createHmac over a KeyObject
   * costs 3.7 µs a signature against 1.4 µs over the same bytes (Node 20),
   * and each service signs or checks once per render.
   */
  private readonly key: Buffer
  /** A nonce is this signer's random prefix and a counter: unique without reading randomness per request. */
  private readonly noncePrefix = randomBytes(9).toString('base64url')
  private nonces = 0

  constructor(
    secret: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.key = Buffer.from(secret, 'utf8')
  }

  sign({ method, path, headers, digest }: SignedParts): string {
    let text = `${method} ${path}\n`
    for (const name of RENDER_SIGNED_HEADERS) text += headerLine(name, headers[name])
    return createHmac('sha256', this.key).update(`${text}\n${digest}`).digest('base64url')
  }

  /** Whether `signature` is this request's, compared in constant time. */
  verify(parts: SignedParts, signature: unknown): boolean {
    if (typeof signature !== 'string') return false
    const expected = Buffer.from(this.sign(parts))
    const given = Buffer.from(signature)
    return given.length === expected.length && timingSafeEqual(given, expected)
  }

  /**
   * The headers that sign a request sent now with `headers` (those of
   * RENDER_SIGNED_HEADERS it has are signed as they are, the others as absent):
   * when it was signed, a nonce of its own, and the signature.
   */
  signing(method: string, path: string, headers: HeaderValues, digest = EMPTY_CONTENT_DIGEST): Record<string, string> {
    const stamp = { [RENDER_SIGNED_AT_HEADER]: String(this.clock()), [RENDER_NONCE_HEADER]: `${this.noncePrefix}${(this.nonces++).toString(36)}` }
    return { ...stamp, [RENDER_SIGNATURE_HEADER]: this.sign({ method, path, headers: { ...headers, ...stamp }, digest }) }
  }

  /** The same as `signing`, its three headers added to `headers` itself: a request's headers are then one object, not four. */
  signInto(method: string, path: string, headers: Record<string, string>, digest = EMPTY_CONTENT_DIGEST): Record<string, string> {
    headers[RENDER_SIGNED_AT_HEADER] = String(this.clock())
    headers[RENDER_NONCE_HEADER] = `${this.noncePrefix}${(this.nonces++).toString(36)}`
    headers[RENDER_SIGNATURE_HEADER] = this.sign({ method, path, headers, digest })
    return headers
  }
}

/** Shortest RENDER_SECRET either service accepts. */
export const RENDER_SECRET_MIN_LENGTH = 16
