import { RENDER_SIGNATURE_HEADER } from '../../shared/constants.ts'
import { type HeaderValues, RENDER_SIGNED_AT_HEADER, type RenderSigner } from '../../shared/render-protocol/index.ts'

/** How far ahead of the renderer's clock a request may be signed: the gateway's clock may run a little ahead. */
export const RENDER_SIGNATURE_CLOCK_SKEW_MS = 2000
/**
 * Signatures remembered at most (about 7 MB of heap, measured): each is held
 * until its request could no longer be admitted anyway. A renderer takes far
 * fewer renders than this within RENDER_SIGNATURE_MAX_AGE_MS; past it, the
 * oldest go (see UsedSignatures).
 */
export const USED_SIGNATURES_MAX = 65_536

/** What the check reads of a request (Fastify's, or Node's for a stand-in). */
export interface SignedRequest {
  method?: string | undefined
  url?: string | undefined
  headers: HeaderValues
}

/** Why a render request is refused. */
export type SignatureRefusal = 'unsigned' | 'bad signature' | 'expired' | 'signed ahead' | 'replayed'

/** A signing time as the gateway sends it: milliseconds since the epoch, digits only. */
const SIGNED_AT = /^\d{1,15}$/

/**
 * The signatures of admitted render requests, each until it expires, so that
 * a captured request renders once. Bounded: when full, the oldest entry goes,
 * and every request signed no later than it is refused from then on (it might
 * be that one again); the gateway's requests come signed later than that.
 */
export class UsedSignatures {
  /** Signature to its signing time, in the order admitted: about the order of signing, so expired ones are at the front. */
  private readonly used = new Map<string, number>()
  /** Signed at or before this, a request can no longer be told from a replay. */
  private forgottenUpTo = Number.NEGATIVE_INFINITY

  constructor(private readonly maxEntries: number) {}

  /** Records a signature; false when it was used before, or signed too early to tell. */
  use(signature: string, signedAt: number, expiredBefore: number): boolean {
    if (signedAt <= this.forgottenUpTo || this.used.has(signature)) return false
    for (const [old, oldSignedAt] of this.used) {
      if (oldSignedAt >= expiredBefore && this.used.size < this.maxEntries) break
      this.used.delete(old)
      if (oldSignedAt >= expiredBefore) this.forgottenUpTo = Math.max(this.forgottenUpTo, oldSignedAt)
    }
    this.used.set(signature, signedAt)
    return true
  }

  get size(): number {
    return this.used.size
  }
}

export interface SignatureCheckOptions {
  /** RENDER_SIGNATURE_MAX_AGE_MS. */
  maxAgeMs: number
  /** RENDER_REPLAY_CHECK: false admits a signed request whatever its age and however often. */
  replayCheck: boolean
  now?: () => number
  usedMax?: number
}

/**
 * Admits a render request when the gateway signed it (shared/render-protocol/signature.ts),
 * recently (within maxAgeMs, and not more than the clock skew ahead), and
 * it has not been admitted before. The time is checked before the
 * signature, and a signature is remembered only once it is valid, so that
 * nobody without the secret costs more than a parse or fills the memory.
 */
export class SignatureCheck {
  private readonly used: UsedSignatures
  private readonly now: () => number

  constructor(
    private readonly signer: RenderSigner,
    private readonly options: SignatureCheckOptions,
  ) {
    this.used = new UsedSignatures(options.usedMax ?? USED_SIGNATURES_MAX)
    this.now = options.now ?? Date.now
  }

  /** Why this request is refused; undefined when it is admitted, its signature then used up. */
  refusal(request: SignedRequest, digest: string): SignatureRefusal | undefined {
    const { headers } = request
    const signature = headers[RENDER_SIGNATURE_HEADER]
    const stamp = headers[RENDER_SIGNED_AT_HEADER]
    if (typeof signature !== 'string' || typeof stamp !== 'string' || !SIGNED_AT.test(stamp)) return 'unsigned'
    const signedAt = Number(stamp)
    const now = this.now()
    const { maxAgeMs, replayCheck } = this.options
    if (replayCheck && signedAt < now - maxAgeMs) return 'expired'
    if (replayCheck && signedAt > now + RENDER_SIGNATURE_CLOCK_SKEW_MS) return 'signed ahead'
    if (!this.signer.verify({ method: request.method ?? '', path: request.url ?? '', headers, digest }, signature)) return 'bad signature'
    if (replayCheck && !this.used.use(signature, signedAt, now - maxAgeMs)) return 'replayed'
    return undefined
  }

  /** Signatures remembered now, for tests. */
  get remembered(): number {
    return this.used.size
  }
}
