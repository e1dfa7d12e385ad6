import { type Readable, Transform, pipeline } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { LRUCache } from 'lru-cache'
import { CACHE_STATUS_HEADER, CSP_NONCE_HEADER, PRIVATE_NO_STORE } from '../../shared/constants.ts'
import { RENDER_TAGS_HEADER } from '../../shared/render-protocol/index.ts'
import { cacheTagHeaders } from '../cache/cache-tags.ts'
import { headersForCache } from '../cache/page-cache-hits.ts'
import { NO_INLINE_SOURCES, type PagePolicies } from '../http/content-security.ts'
import { PRIVATE_NO_CACHE } from '../http/http-caching.ts'
import { dropUnusableCookie, markPrivate, settleTokenCookie } from '../preview/tokens.ts'
import { answerHeaderTags } from '../renderers/answer-tags.ts'
import type { RenderResponse } from '../renderers/renderer-pool.ts'
import { fillNotFound } from './not-found-page.ts'
import { type PageStore, passedHeaders } from './page-store.ts'
import type { PageVisit } from './page-visit.ts'

/**
 * The body to send, and the whole of it once it has gone out: the stored
 * page is then the page the visitor got, with every header the send hooks
 * added. A stream passes through a recorder between the render and
 * `reply.send`: it records each chunk as the response reads it, so nothing
 * flows before the response is ready for it, however long the send hooks take.
 */
function recordedWhenSent(reply: FastifyReply, body: Buffer | Readable, done: (whole: Buffer) => void): Buffer | Readable {
  if (Buffer.isBuffer(body)) {
    reply.raw.once('close', () => done(body))
    return body
  }
  const chunks: Buffer[] = []
  const recorder = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      chunks.push(chunk)
      next(null, chunk)
    },
  })
  // The response read all of it: a visitor who left early (the recorder destroyed) leaves nothing to store.
  recorder.once('end', () => done(Buffer.concat(chunks)))
  // A failing render fails the recorder the response reads from; a visitor who leaves ends the render.
  pipeline(body, recorder, () => undefined)
  return recorder
}

/** Bytes of tag lists kept below, as their text counts them. */
const SAID_TAGS_MAX_BYTES = 1024 * 1024

/**
 * The tag headers of a page's answer by the tags its render said in its
 * header, as text: a page rendered again says the same text, and its tags
 * are then not split, checked and joined again for every render.
 */
const tagHeadersBySaid = new LRUCache<string, Readonly<Record<string, string>>>({ maxSize: SAID_TAGS_MAX_BYTES, sizeCalculation: (_headers, said) => said.length + 1 })

function tagHeadersOf(rendered: RenderResponse): Readonly<Record<string, string>> {
  const said = rendered.headers[RENDER_TAGS_HEADER]
  if (typeof said !== 'string') return cacheTagHeaders(answerHeaderTags(rendered) ?? [])
  let headers = tagHeadersBySaid.get(said)
  if (headers === undefined) {
    headers = cacheTagHeaders(answerHeaderTags(rendered) ?? [])
    tagHeadersBySaid.set(said, headers)
  }
  return headers
}

/**
 * The stage that sends a rendered page to its visitor, with the headers the
 * renderer passes on and its policy: a preview private, a live page with its
 * cache tags, stored once it has gone out whole.
 */
export class RenderedAnswers {
  constructor(
    private readonly app: FastifyInstance,
    private readonly policies: PagePolicies,
    private readonly store: PageStore,
  ) {}

  send(visit: PageVisit, reply: FastifyReply, rendered: RenderResponse): FastifyReply | Promise<FastifyReply> {
    const nonce = rendered.headers[CSP_NONCE_HEADER]
    reply.code(rendered.statusCode).headers(passedHeaders(rendered))
    reply.header('content-security-policy', typeof nonce === 'string' ? this.policies.withNonce(nonce) : this.policies.withInline(NO_INLINE_SOURCES))
    if (visit.preview) return this.sendPreview(visit, reply, rendered)
    const stored = visit.notFound ? rendered.statusCode === 404 : rendered.statusCode === 200
    reply.header(CACHE_STATUS_HEADER, visit.useCache && stored ? 'MISS' : 'BYPASS')
    reply.header('cache-control', rendered.statusCode === 200 ? PRIVATE_NO_CACHE : PRIVATE_NO_STORE)
    dropUnusableCookie(reply, visit.context)
    if (visit.notFound && stored) return this.sendNotFound(visit, reply, rendered)
    if (rendered.statusCode !== 200) {
      visit.settleFlight({ kind: 'over' })
      // The page is gone (404, 410) or is another answer now: a stored one is not served past its TTL. A failure keeps it to stand in.
      if (visit.useCache && rendered.statusCode < 500) this.app.pageCache.drop(visit.cacheKey)
      return reply.send(rendered.body)
    }
    // The tags the render's answer says so far (a streamed page's deferred data may add some): the stored page gets them all.
    reply.headers(tagHeadersOf(rendered))
    if (!visit.storable) return reply.send(rendered.body)
    const store = (body: Buffer): void => this.store.storeAndSettle(visit, rendered, headersForCache(reply.getHeaders()), body)
    return reply.send(recordedWhenSent(reply, rendered.body, store))
  }

  private sendPreview(visit: PageVisit, reply: FastifyReply, rendered: RenderResponse): FastifyReply {
    this.app.pageCacheLookups('BYPASS')
    markPrivate(reply)
    reply.header(CACHE_STATUS_HEADER, 'BYPASS')
    // A failed render may mean Craft refused the token: no cookie that would then fail every page.
    settleTokenCookie(reply, visit.context, visit.shows, rendered.statusCode < 500)
    return reply.send(rendered.body)
  }

  /** The 404 page rendered for NOT_FOUND_RENDER_URL: read whole, sent with the visitor's fields, and stored as it was rendered. */
  private async sendNotFound(visit: PageVisit, reply: FastifyReply, rendered: RenderResponse): Promise<FastifyReply> {
    const { notFound } = visit
    const body = Buffer.isBuffer(rendered.body) ? rendered.body : await buffer(rendered.body)
    // Stored before it is sent: the 404s waiting for this render then find it.
    if (visit.storable) this.store.store(visit, rendered, headersForCache(reply.getHeaders()), body)
    return reply.send(notFound ? fillNotFound(body, notFound) : body)
  }
}
