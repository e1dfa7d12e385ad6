import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { PAYLOAD_UNAVAILABLE_MESSAGE } from '../../shared/constants.ts'
import { errorPayload } from '../../shared/payload.ts'
import { encodeRenderRequest } from '../../shared/render-protocol/index.ts'
import type { SitePath } from '../../shared/site-path.ts'
import { mergeTags } from '../cache/cache-tags.ts'
import { type BuiltPayload, type PayloadRequest, payloadInput } from '../payload/build-payload.ts'
import type { NotFoundFields } from './not-found-page.ts'
import { dataJsonOf, payloadJson } from '../payload/payload-json.ts'
import type { ResolvedToken } from '../preview/tokens.ts'
import { RenderBody, type RenderSources } from './render-body.ts'
import { PENDING, settledAtOnce } from './settled-at-once.ts'

/** A render request's body, and whether its data shows a draft or an unpublished entry (undefined: the gateway cannot tell). */
export interface PreparedRender {
  body: RenderBody
  showsPreview: boolean | undefined
  /** A live page the CMS says is missing (404): the fields of its payload that depend on its address (see pages/not-found-page.ts). */
  notFound?: NotFoundFields
}

/**
 * The page's data for its render, assembled here (through the caches) so
 * the renderer need not ask for it, with the cache tags of that data: the
 * primary part, and the deferred part too when it is at hand at once. Data
 * still on its way is left to the renderer, which asks for it (its tags come
 * with it) and streams it in when it comes. The renderer's answer says the
 * tags of everything it rendered (gateway/renderers/render-exchange.ts).
 */
export function renderRequest(app: FastifyInstance, request: Requester, url: SitePath, context: ResolvedToken): PreparedRender | Promise<PreparedRender> {
  const pageKey = `${url.rawPath}${url.search}`
  // Without a query cache the deferred data is never at hand, and asking for it here would ask the CMS twice;
  // nor is a kept render request's data, which is only reused while the cache holds it fresh.
  const deferredMayBeCached = app.config.cache.queryCache && !context.preview
  const reused = deferredMayBeCached ? app.renderBodies.reused(pageKey, app.content.stillFresh) : undefined
  // A kept body goes at once, without a promise.
  if (reused) return { body: reused, showsPreview: false }
  return assembled(app, request, url, context, pageKey, deferredMayBeCached)
}

type Requester = { id: string; log: FastifyBaseLogger }

/** The render request of a page whose kept body could not be reused: its payload built through the caches. */
async function assembled(app: FastifyInstance, request: Requester, url: SitePath, context: ResolvedToken, pageKey: string, deferredMayBeCached: boolean): Promise<PreparedRender> {
  // Read before the keys are made: documents changed during the build then show as another generation, and nothing is reused.
  const generation = app.content.generation
  const input = payloadInput(url.path, new URLSearchParams(url.search), context)
  let primary: BuiltPayload
  try {
    primary = await app.payloads.build({ ...input, part: 'primary' })
  } catch (error) {
    request.log.error({ err: error }, 'the page data could not be assembled')
    const failed = errorPayload({ path: url.path, fullPath: input.fullPath, statusCode: 502, message: PAYLOAD_UNAVAILABLE_MESSAGE, preview: context.preview, siteUrl: '' })
    return { body: RenderBody.of(encodeRenderRequest(payloadJson(failed), [])), showsPreview: undefined }
  }
  const { payload } = primary
  if (context.preview) return previewRenderRequest(app, input, primary, context)
  if (payload.status === 404) {
    const notFound = { path: payload.path, fullPath: payload.fullPath, message: payload.error?.message ?? '', suggestion: payload.suggestion ?? null }
    // Its tags are its layout's and the notFound entry's: the stored 404 page is purged by them.
    return { body: RenderBody.of(encodeRenderRequest(payloadJson(payload), primary.tags)), showsPreview: false, notFound }
  }
  // Live pages' bodies are kept while their data is the same objects; anything else is made for this render alone.
  const bodyOf = (deferred?: BuiltPayload, sources?: RenderSources): PreparedRender => {
    const tags = deferred ? mergeTags([primary.tags, deferred.tags]) : primary.tags
    const deferredData = deferred?.payload.data
    return {
      body:
        payload.status === 200
          ? app.renderBodies.bodyOf(pageKey, payload, tags, deferredData, sources)
          : RenderBody.of(encodeRenderRequest(payloadJson(payload), tags, deferredData === undefined ? undefined : dataJsonOf(deferredData))),
      showsPreview: false,
    }
  }
  if (payload.status !== 200 || !deferredMayBeCached) return bodyOf()
  // The whole page from the pages' cache: the next render may take this body while those answers stay the same.
  if (payload.pending.length === 0) return bodyOf(undefined, sourcesOf(generation, primary))
  const deferred = await settledAtOnce(app.payloads.build({ ...input, part: 'deferred' }))
  if (deferred === PENDING || deferred === undefined || deferred.payload.status !== 200) return bodyOf()
  return bodyOf(deferred, sourcesOf(generation, primary, deferred))
}

/** What a whole render was built from, when every part's answers came from the pages' cache. */
function sourcesOf(generation: number, ...parts: BuiltPayload[]): RenderSources | undefined {
  const sources: RenderSources = { keys: [], answers: [], generation }
  for (const part of parts) {
    if (!part.sources) return undefined
    sources.keys.push(...part.sources.keys)
    sources.answers.push(...part.sources.answers)
  }
  return sources
}

/**
 * The render request of a preview, and whether the page shows a draft or an
 * unpublished entry. When that decides the token cookie (a token from the
 * preview link or the cookie) and the primary part shows none, the deferred
 * part is fetched here and handed over: the cookie goes out with the
 * headers, before the renderer would have asked for it.
 */
async function previewRenderRequest(app: FastifyInstance, input: Omit<PayloadRequest, 'part'>, primary: BuiltPayload, context: ResolvedToken): Promise<PreparedRender> {
  const { payload } = primary
  // A preview is never stored: its render is sent no tags.
  const alone = RenderBody.of(encodeRenderRequest(payloadJson(payload), []))
  if (payload.status >= 500) return { body: alone, showsPreview: undefined }
  if (primary.showsPreview || payload.pending.length === 0) return { body: alone, showsPreview: primary.showsPreview }
  if (context.source !== 'query' && context.source !== 'cookie') return { body: alone, showsPreview: undefined }
  const deferred = await app.payloads.build({ ...input, part: 'deferred' }).catch(() => undefined)
  if (deferred === undefined || deferred.payload.status !== 200) return { body: alone, showsPreview: undefined }
  return { body: RenderBody.of(encodeRenderRequest(payloadJson(payload), [], dataJsonOf(deferred.payload.data))), showsPreview: deferred.showsPreview }
}
