import { withCleanRichText } from '../../shared/rich-text-sanitizer.ts'
import type { UpstreamAnswer } from './client.ts'

/** An upstream answer with every rich text field sanitised, before anything caches or renders it. */
export function sanitizeAnswer(answer: UpstreamAnswer): UpstreamAnswer {
  if (!answer.body.data) return answer
  const data = withCleanRichText(answer.body.data)
  // Clean text comes back as the same object: nothing to copy or serialise again.
  if (data === answer.body.data) return answer
  const body = { ...answer.body, data }
  return { ...answer, body, raw: Buffer.from(JSON.stringify(body)) }
}
