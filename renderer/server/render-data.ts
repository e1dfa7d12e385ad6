import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Registry } from 'prom-client'
import { RENDER_REQUEST_BODY_LIMIT_BYTES } from '../../shared/constants.ts'
import { BadRequestError } from '../../shared/errors.ts'
import { counter } from '../../shared/metrics.ts'
import {
  RENDER_DATA_KEPT_HEADER,
  RENDER_REFERENCE_BODY_LIMIT_BYTES,
  RENDER_REFERENCE_CONTENT_TYPE,
  RENDER_REQUEST_CONTENT_TYPE,
  type RenderRequest,
  decodeRenderRequest,
} from '../../shared/render-protocol/index.ts'
import { scriptJson } from '../../shared/script-json.ts'
import { RenderDataUnknownError } from '../errors.ts'
import type { KeptRenderData, ReadyRenderData } from './kept-render-data.ts'
import { resolvedDeferred } from '../app/screens/types.ts'

/** A reference body (RENDER_REFERENCE_CONTENT_TYPE): the digest of a full render request's body whose data this renderer kept. */
export class RenderReference {
  constructor(readonly digest: string) {}
}

export interface RenderDataOptions {
  /** Where signed live pages' data is kept; undefined without RENDER_SECRET (a reference must be signed to be trusted). */
  kept: KeptRenderData | undefined
  /** Rich text cleaning, applied to whatever enters. */
  clean: <T>(value: T) => T
  registry: Registry
}

/**
 * Where a render request's data comes from: its body, decoded and cleaned;
 * or, for a body the renderer has seen (the same digest: the same bytes),
 * what was kept of it; or a reference that names kept data by that digest.
 * Data is kept by the body's digest, not the request's signature: each
 * request is signed afresh (its time, its nonce), the body stays the same. A live page's data is kept and the answer
 * says so, so that the gateway may send a reference next time; a reference
 * to data no longer kept gets RENDER_DATA_UNKNOWN, and the gateway sends the body.
 * Signatures are checked by the route before any of this runs.
 */
export class RenderDataSource {
  private readonly kept: KeptRenderData | undefined
  private readonly clean: <T>(value: T) => T
  private readonly from

  constructor({ kept, clean, registry }: RenderDataOptions) {
    this.kept = kept
    this.clean = clean
    const sources = counter(registry, 'render_data_total', "Render requests' data by where it came from: body, kept (a body seen before), reference, unknown_reference (answered 409)", ['source'])
    // Bound once: labelling by object hashes the labels on every render.
    this.from = { body: sources.labels('body'), kept: sources.labels('kept'), reference: sources.labels('reference'), unknownReference: sources.labels('unknown_reference') }
  }

  /**
   * The body parsers: a render request as bytes (its signature is checked
   * over the bytes it came as, and it is decoded in the route, where a bad
   * one gets its 400); a reference only where data is kept (with
   * RENDER_SECRET: only then does this renderer say it kept a body, and only
   * then does the gateway send references).
   */
  acceptBodies(app: FastifyInstance): void {
    app.addContentTypeParser(RENDER_REQUEST_CONTENT_TYPE, { parseAs: 'buffer', bodyLimit: RENDER_REQUEST_BODY_LIMIT_BYTES }, (_request, body, done) => done(null, body))
    if (!this.kept) return
    app.addContentTypeParser(RENDER_REFERENCE_CONTENT_TYPE, { parseAs: 'string', bodyLimit: RENDER_REFERENCE_BODY_LIMIT_BYTES }, (_request, body, done) => done(null, new RenderReference(String(body))))
  }

  /** The data a verified POST carries or names; `digest`, the body's (contentDigest), when its signature was checked. */
  of(request: FastifyRequest, reply: FastifyReply, body: Buffer | RenderReference, digest: string | undefined): ReadyRenderData {
    if (body instanceof RenderReference) return this.named(request.url, body)
    const keyed = this.kept && digest !== undefined ? { kept: this.kept, digest } : undefined
    const known = keyed?.kept.get(keyed.digest, request.url)
    if (known) {
      this.from.kept.inc()
      reply.header(RENDER_DATA_KEPT_HEADER, '1')
      return known
    }
    const given = decodeRenderRequest(body.toString('utf8'))
    if (!given) throw new BadRequestError('The body is not a render request')
    this.from.body.inc()
    const data = this.ready(given)
    // Only live pages: a preview's data is an editor's, seen once; an error page's is made for one render.
    const keepable = !data.payload.preview && data.payload.status === 200
    if (keyed && keepable && keyed.kept.keep(keyed.digest, request.url, data)) reply.header(RENDER_DATA_KEPT_HEADER, '1')
    return data
  }

  private named(url: string, reference: RenderReference): ReadyRenderData {
    const known = this.kept?.get(reference.digest, url)
    if (!known) {
      this.from.unknownReference.inc()
      throw new RenderDataUnknownError()
    }
    this.from.reference.inc()
    return known
  }

  /**
   * A decoded render request made ready: rich text cleaned, and the JSON the
   * browser hydrates from taken as it came, serialised again only where
   * cleaning changed the data.
   */
  private ready(given: RenderRequest): ReadyRenderData {
    const payload = this.clean(given.payload)
    const payloadJson = payload === given.payload ? given.payloadJson : scriptJson(payload)
    const { tags } = given
    if (given.deferred === undefined) return { payload, payloadJson, tags }
    const deferred = this.clean(given.deferred)
    return { payload, payloadJson, tags, deferred: resolvedDeferred(deferred, deferred === given.deferred ? given.deferredJson : scriptJson(deferred)) }
  }
}
