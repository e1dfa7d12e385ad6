import { Readable } from 'node:stream'
import type { Dispatcher } from 'undici'
import {
  RENDER_DATA_KEPT_HEADER,
  RENDER_DATA_UNKNOWN_STATUS,
  RENDER_PROTOCOL_HEADER,
  RENDER_PROTOCOL_VERSION,
  RENDER_REFERENCE_CONTENT_TYPE,
  RENDER_REQUEST_CONTENT_TYPE,
  type RenderSigner,
} from '../../shared/render-protocol/index.ts'
import type { RenderBody } from '../pages/render-body.ts'

type IncomingHttpHeaders = Dispatcher.ResponseData['headers']

/** A renderer's answer as the gateway reads it. */
export interface RendererAnswer {
  statusCode: number
  headers: IncomingHttpHeaders
  /** The whole answer when it said its length (read to its end first), else a stream of it as it comes. */
  body: Buffer | Readable
  /** Filled in once the body has ended. */
  trailers: IncomingHttpHeaders
}

/** Where one render request goes: a renderer's origin and Host, and the name a body's keptBy knows it by. */
export interface RenderTarget {
  origin: string
  host: string
  /** The origin a RenderBody's keptBy names this renderer by. */
  keptAs: string
}

/**
 * One render request to one renderer, in this release's protocol
 * (RENDER_PROTOCOL_HEADER), signed as it is sent when there is a secret (its
 * time, a nonce, the headers the renderer reads, the body's digest). A body
 * whose data the renderer said it kept goes as a reference (its digest, a
 * few dozen bytes instead of the data); when the renderer no longer has it
 * (evicted, restarted: RENDER_DATA_UNKNOWN_STATUS), the body itself follows
 * at once.
 */
export async function sendRender(
  dispatcher: Dispatcher,
  signer: RenderSigner | undefined,
  target: RenderTarget,
  path: string,
  headers: Record<string, string>,
  body: RenderBody,
  giveUp: GiveUp,
): Promise<RendererAnswer> {
  const { origin } = target
  if (signer && body.keptBy.has(target.keptAs)) {
    const signed = signer.signInto('POST', path, requestHeaders(headers, target, RENDER_REFERENCE_CONTENT_TYPE), body.referenceDigest)
    const answer = await exchange(dispatcher, { origin, path, method: 'POST', headers: signed, body: body.digest }, giveUp)
    if (answer.statusCode !== RENDER_DATA_UNKNOWN_STATUS) return answer
    discardAnswer(answer)
    body.keptBy.delete(target.keptAs)
  }
  const sent = requestHeaders(headers, target, RENDER_REQUEST_CONTENT_TYPE)
  const signed = signer ? signer.signInto('POST', path, sent, body.digest) : sent
  const answer = await exchange(dispatcher, { origin, path, method: 'POST', headers: signed, body: body.bytes }, giveUp)
  if (signer && answer.headers[RENDER_DATA_KEPT_HEADER] !== undefined) body.keptBy.add(target.keptAs)
  return answer
}

/** A render request's headers in one object, signed into afterwards: the caller's, the target's Host, the protocol and the body's type. */
function requestHeaders(headers: Record<string, string>, target: RenderTarget, contentType: string): Record<string, string> {
  const sent = { ...headers }
  sent.host = target.host
  sent[RENDER_PROTOCOL_HEADER] = RENDER_PROTOCOL_VERSION
  sent['content-type'] = contentType
  return sent
}

/** Drops an answer that will not be sent; undici reports the abort as an error, which is expected here. */
export function discardAnswer(answer: Pick<RendererAnswer, 'body'>): void {
  if (Buffer.isBuffer(answer.body)) return
  answer.body.on('error', () => undefined)
  answer.body.destroy()
}

const NOTHING = Buffer.alloc(0)

/**
 * One request to a renderer on undici's dispatcher, without undici's
 * request() around it. An answer of known length (a page rendered whole) is
 * collected in the handler into one buffer: no stream, no async resource, no
 * events per chunk, where undici's request() makes a Readable for every
 * answer. Only an answer that streams (no length: a page whose slow parts
 * follow) gets a Readable, which pauses the renderer's socket while the
 * visitor reads slowly and aborts the request when it is destroyed.
 */
export function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, giveUp?: GiveUp): Promise<RendererAnswer> {
  return new Promise((resolve, reject) => {
    const handler = new AnswerHandler(resolve, reject)
    // Given up (the renderer was marked down): the request is aborted, and the render fails now rather than at its timeout.
    giveUp?.attach((error) => handler.abort(error))
    dispatcher.dispatch(options, handler)
  })
}

/**
 * A render the pool may give up (its renderer found hung): what an
 * AbortController would do for one listener, without its event target,
 * whose making showed at 1.6 % of the gateway's time per fresh page.
 */
export class GiveUp {
  private abortRequest: ((error: Error) => void) | undefined
  private reason: Error | undefined

  /** Aborts the request of this render now and any it makes later. */
  give(reason: Error): void {
    if (this.reason) return
    this.reason = reason
    this.abortRequest?.(reason)
  }

  /** The request now under way for this render (a render's second request replaces its first); aborted at once when given up already. */
  attach(abortRequest: (error: Error) => void): void {
    this.abortRequest = abortRequest
    if (this.reason) abortRequest(this.reason)
  }
}

class AnswerHandler implements Dispatcher.DispatchHandler {
  private answer: RendererAnswer | undefined
  /** The body so far, for an answer of known length. */
  private chunks: Buffer[] | undefined
  private stream: Readable | undefined
  /** Resolved or rejected: later errors go to the stream. */
  private settled = false
  private ended = false

  constructor(
    private readonly resolve: (answer: RendererAnswer) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  private controller: Dispatcher.DispatchController | undefined
  private abortedWith: Error | undefined

  /** Marks this a handler of undici's current interface (undici wraps it for its own, older one). */
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.abortedWith) controller.abort(this.abortedWith)
  }

  /** Ends the request: a render not yet answered fails with `error`, one streaming has its stream destroyed with it. */
  abort(error: Error): void {
    if (this.ended || this.abortedWith) return
    this.abortedWith = error
    this.controller?.abort(error)
    this.onResponseError(this.controller as Dispatcher.DispatchController, error)
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    // An informational answer (1xx) comes before the real one.
    if (statusCode < 200) return
    const answer: RendererAnswer = { statusCode, headers, body: NOTHING, trailers: {} }
    this.answer = answer
    if (headers['content-length'] !== undefined) {
      this.chunks = []
      return
    }
    this.stream = new Readable({
      read: () => controller.resume(),
      destroy: (error, done) => {
        // Left before its end (a visitor gone, a render dropped): the renderer's request ends too.
        if (!this.ended) controller.abort(error ?? new Error('the rendered page was dropped before its end'))
        done(error)
      },
    })
    answer.body = this.stream
    this.settle(answer)
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.chunks) this.chunks.push(chunk)
    else if (this.stream && !this.stream.push(chunk)) controller.pause()
  }

  onResponseEnd(_controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    const answer = this.answer
    if (!answer) return
    this.ended = true
    Object.assign(answer.trailers, trailers)
    if (this.chunks) {
      answer.body = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks)
      this.chunks = undefined
      this.settle(answer)
    } else {
      this.stream?.push(null)
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.ended) return
    this.ended = true
    if (!this.settled) {
      this.settled = true
      this.reject(error)
    } else {
      this.stream?.destroy(error)
    }
  }

  private settle(answer: RendererAnswer): void {
    this.settled = true
    this.resolve(answer)
  }
}
