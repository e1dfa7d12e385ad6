import type { Dispatcher } from 'undici'
import { RENDER_TAGS_HEADER, splitRenderTags } from '../../shared/render-protocol/index.ts'
import { TAG_PATTERN } from '../cache/cache-tags.ts'
import type { RendererAnswer } from './render-exchange.ts'

type IncomingHttpHeaders = Dispatcher.ResponseData['headers']

/**
 * The cache tags of what the page showed, as the renderer's answer says
 * them (RENDER_TAGS_HEADER): in the header of a page rendered whole, in the
 * trailer of a streamed one (undefined until its body has ended). Read
 * defensively: a tag that is not one a purge may name (TAG_PATTERN) is
 * dropped, and a list past the bounds (MAX_RENDER_TAGS) is no list:
 * undefined, as for an answer that says none, and such a page is not stored.
 */
export function answerTags(answer: Pick<RendererAnswer, 'headers' | 'trailers'>): readonly string[] | undefined {
  return checkedTags(saysInTrailer(answer.headers) ? answer.trailers[RENDER_TAGS_HEADER] : answer.headers[RENDER_TAGS_HEADER])
}

/** The tags an answer says in its header: all of a page rendered whole, those known when a streamed page began; for the headers of a page sent before its end. */
export function answerHeaderTags(answer: Pick<RendererAnswer, 'headers'>): readonly string[] | undefined {
  return checkedTags(answer.headers[RENDER_TAGS_HEADER])
}

/** Whether the answer declares the tags trailer (a streamed page): its Trailer header lists it (comma-separated, or space-separated as Fastify writes it). */
function saysInTrailer(headers: IncomingHttpHeaders): boolean {
  const declared = headers.trailer
  const names = Array.isArray(declared) ? declared.join(',') : typeof declared === 'string' ? declared : ''
  return names.toLowerCase().split(/[\s,]+/).includes(RENDER_TAGS_HEADER)
}

function checkedTags(value: unknown): readonly string[] | undefined {
  const listed = splitRenderTags(value)
  if (listed === undefined) return undefined
  const tags = new Set<string>()
  for (const tag of listed) if (TAG_PATTERN.test(tag)) tags.add(tag)
  return [...tags]
}
