import type { DroppedLink } from '../../shared/link-href.ts'
import { sanitizeRichText, withCleanRichText } from '../../shared/rich-text-sanitizer.ts'
import type { UpstreamAnswer } from './client.ts'

/** An upstream answer with every rich text field sanitised and every link field holding only an address a link may go to (each dropped link told to `dropped`), before anything caches or renders it. */
export function sanitizeAnswer(answer: UpstreamAnswer, dropped?: DroppedLink): UpstreamAnswer {
  if (!answer.body.data) return answer
  const data = withCleanRichText(answer.body.data, sanitizeRichText, dropped)
  // Clean text comes back as the same object: nothing to copy or serialise again.
  if (data === answer.body.data) return answer
  const body = { ...answer.body, data }
  return { ...answer, body, raw: Buffer.from(JSON.stringify(body)) }
}
