import type { IncomingMessage } from 'node:http'
import { MAX_URL_LENGTH } from '../../shared/constants.ts'
import { MAX_SITE_PATH_LENGTH } from '../../shared/site-path.ts'

/** The headers of a request, its request line apart: beyond this, 431 (Node's own default for line and headers together). */
export const MAX_HEADER_BYTES = 16 * 1024

/**
 * What Node's HTTP parser reads of a request line and its headers together
 * before it refuses with 431 (its default is MAX_HEADER_BYTES): room for a
 * target well past MAX_URL_LENGTH, so a long address gets its 414 page.
 */
export const MAX_REQUEST_HEAD_BYTES = 64 * 1024

/** A request target longer than MAX_URL_LENGTH, or with a path longer than MAX_SITE_PATH_LENGTH. */
export function targetTooLong(url: string): boolean {
  if (url.length <= MAX_SITE_PATH_LENGTH) return false
  if (url.length > MAX_URL_LENGTH) return true
  const cut = url.indexOf('?')
  return (cut === -1 ? url.length : cut) > MAX_SITE_PATH_LENGTH
}

/** Headers that take more than MAX_HEADER_BYTES as sent (`name: value` and CRLF each). */
export function headersTooLarge(rawHeaders: string[]): boolean {
  let bytes = 0
  for (const part of rawHeaders) bytes += part.length + 2
  return bytes > MAX_HEADER_BYTES
}

/** The status a request too large to read gets (414 for its target, 431 for its headers), or undefined. */
export function oversizedStatus(request: IncomingMessage): 414 | 431 | undefined {
  if (targetTooLong(request.url ?? '')) return 414
  if (headersTooLarge(request.rawHeaders)) return 431
  return undefined
}
