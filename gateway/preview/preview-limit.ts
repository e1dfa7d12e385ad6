import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { CACHE_STATUS_HEADER, PRIVATE_NO_STORE } from '../../shared/constants.ts'
import { PAYLOAD_PARTS } from '../../shared/payload.ts'
import { PreviewLimitError } from '../errors.ts'

/** The payload requests a renderer may make for one render: every part once. */
const PAYLOADS_PER_RENDER = PAYLOAD_PARTS.length

interface RenderInFlight {
  /** The address of the client whose preview this render is. */
  client: string
  /** Payload requests of this render still free of charge. */
  free: number
  /** Renders under this request id (a client may send its own id twice). */
  renders: number
}

/**
 * What one client's previews may cost. A preview bypasses every cache, so
 * each page or payload built with a preview token is counted per client
 * address (PREVIEW_RATE_LIMIT per window). A renderer's payload requests
 * for a preview render carry that render's request id: the first of them
 * come with the render, any more are charged to the client who asked for
 * the page, never to the renderer's own address (which every preview shares).
 */
export class PreviewLimit {
  private readonly renders = new Map<string, RenderInFlight>()
  private readonly chargedTo = new WeakMap<FastifyRequest, string>()
  private readonly count: ReturnType<FastifyInstance['createRateLimit']>

  constructor(app: FastifyInstance, max: number, windowMs: number) {
    this.count = app.createRateLimit({ max, timeWindow: windowMs, keyGenerator: (request) => this.chargedTo.get(request) ?? request.client })
  }

  /** Counts a preview page; undefined when it may go on, else the seconds until the client may preview again. */
  async refusedPage(request: FastifyRequest): Promise<number | undefined> {
    return this.refused(request)
  }

  /** Counts a preview payload, unless it is one of the first a render in flight asks for under its request id. */
  async refusedPayload(request: FastifyRequest): Promise<number | undefined> {
    const render = this.renders.get(request.id)
    if (render) {
      if (render.free > 0) {
        render.free--
        return undefined
      }
      this.chargedTo.set(request, render.client)
    }
    return this.refused(request)
  }

  /** A preview render of a counted page starts: its payload requests follow under its request id until `done`. */
  rendering(request: FastifyRequest): void {
    const render = this.renders.get(request.id)
    if (render) {
      render.renders++
      render.free += PAYLOADS_PER_RENDER
    } else this.renders.set(request.id, { client: request.client, free: PAYLOADS_PER_RENDER, renders: 1 })
  }

  done(request: FastifyRequest): void {
    const render = this.renders.get(request.id)
    if (render && --render.renders === 0) this.renders.delete(request.id)
  }

  private async refused(request: FastifyRequest): Promise<number | undefined> {
    const result = await this.count(request)
    return !result.isAllowed && result.isExceeded ? Math.max(1, result.ttlInSeconds) : undefined
  }
}

/** The error to throw for a preview over the limit, its answer's headers set: the Dutch page for a page, JSON for a payload. */
export function previewRefused(reply: FastifyReply, retryAfterSeconds: number): InstanceType<typeof PreviewLimitError> {
  reply.header(CACHE_STATUS_HEADER, 'BYPASS').header('retry-after', String(retryAfterSeconds)).header('cache-control', PRIVATE_NO_STORE)
  return new PreviewLimitError(retryAfterSeconds)
}
