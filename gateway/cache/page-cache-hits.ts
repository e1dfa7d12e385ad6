import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http'
import { Negotiator } from '@fastify/accept-negotiator'
import { LRUCache } from 'lru-cache'
import { CACHE_STATUS_HEADER, CRAFT_TOKEN_HEADER, PREVIEW_QUERY_PARAMS, PREVIEW_TOKEN_QUERY_PARAM, REQUEST_ID_HEADER, TOKEN_COOKIE_NAME } from '../../shared/constants.ts'
import { requestIdOf } from '../../shared/logging.ts'
import { pageKeyOfUrl } from '../../shared/page-address.ts'
import type { RouteTable } from '../../shared/routes.ts'
import { notModified } from '../http/http-caching.ts'
import { type CachedPage, type PageCache, encodable } from './page-cache.ts'

export interface PageCacheHitOptions {
  pageCache: PageCache
  /** The route table: which query parameters a page reads, the rest left out of its key as the full route leaves them out. */
  routes: RouteTable
  /** False while the gateway drains or is off: Fastify's own route answers then. */
  accepting: () => boolean
  /** Whether the request came over HTTPS (directly, or by a trusted proxy's word): then HSTS is sent. */
  isHttps: (request: IncomingMessage) => boolean
  strictTransportSecurity: string
  /** Counts the hit in the metrics and logs it, as the normal route would; `cache` is HIT, or STALE for a page served while it is rendered again. */
  onHit: (request: IncomingMessage, requestId: string, statusCode: number, cache: HitStatus) => void
}

/** Anything in the address or headers that makes a request a preview (or possibly one): never from the cache. */
const PREVIEW_MARKERS = [...PREVIEW_QUERY_PARAMS, PREVIEW_TOKEN_QUERY_PARAM]

function maybePreview(request: IncomingMessage, url: string): boolean {
  if (request.headers[CRAFT_TOKEN_HEADER] !== undefined) return true
  const cookie = request.headers.cookie
  if (cookie !== undefined && cookie.includes(TOKEN_COOKIE_NAME)) return true
  const cut = url.indexOf('?')
  if (cut === -1) return false
  const query = url.slice(cut).toLowerCase()
  return PREVIEW_MARKERS.some((marker) => query.includes(marker))
}

type Variant = 'identity' | 'gzip' | 'br'

/** A fresh page, or one past its TTL served while another request renders it again. */
export type HitStatus = 'HIT' | 'STALE'

/**
 * Accept-Encoding read with its q-values, as @fastify/compress reads it for
 * fresh answers (`br;q=0` refuses brotli); browsers send a handful of
 * distinct headers, so each is negotiated once.
 */
const encodings = new Negotiator({ supportedValues: ['br', 'gzip', 'identity'], cache: new LRUCache<string, string>({ max: 256 }) })
/** The same, when the page holds only one of the two: whether the client takes that one rather than the body as it is. */
const onlyGzip = new Negotiator({ supportedValues: ['gzip', 'identity'], cache: new LRUCache<string, string>({ max: 256 }) })
const onlyBrotli = new Negotiator({ supportedValues: ['br', 'identity'], cache: new LRUCache<string, string>({ max: 256 }) })

/**
 * The variant a hit is served in. A page holds a variant only once a client
 * asked for its encoding (made off the event loop, page-cache.ts `want`):
 * until then a request for it gets the other variant if it takes that one,
 * else undefined, and the full route answers it, compressing the page as it
 * goes out, as it does a fresh page. A page too small to encode is served as it is.
 */
function chooseVariant(request: IncomingMessage, key: string, page: CachedPage, pageCache: PageCache): Variant | undefined {
  const accepted = request.headers['accept-encoding']
  if (typeof accepted !== 'string') return 'identity'
  const chosen = encodings.negotiate(accepted)
  if (chosen === 'br') {
    if (page.brotli) return 'br'
    if (!encodable(page)) return 'identity'
    pageCache.want(key, page, 'br')
    return page.gzip && onlyGzip.negotiate(accepted) === 'gzip' ? 'gzip' : undefined
  }
  if (chosen === 'gzip') {
    if (page.gzip) return 'gzip'
    if (!encodable(page)) return 'identity'
    pageCache.want(key, page, 'gzip')
    return page.brotli && onlyBrotli.negotiate(accepted) === 'br' ? 'br' : undefined
  }
  return 'identity'
}

function bodyOf(page: CachedPage, variant: Variant): Buffer {
  return (variant === 'br' ? page.brotli : variant === 'gzip' ? page.gzip : undefined) ?? page.body
}

/**
 * The header list of each variant of a cached page, made on its first hit:
 * a hit then only appends its request id (and HSTS) instead of building a
 * header object from scratch.
 */
const headLists = new WeakMap<CachedPage, Record<HitStatus, Partial<Record<Variant | 'not-modified', string[]>>>>()

function headList(page: CachedPage, variant: Variant | 'not-modified', status: HitStatus): string[] {
  let byStatus = headLists.get(page)
  if (!byStatus) headLists.set(page, (byStatus = { HIT: {}, STALE: {} }))
  const lists = byStatus[status]
  let list = lists[variant]
  if (!list) {
    list = []
    for (const [name, value] of Object.entries(page.headers)) list.push(name, value)
    list.push(CACHE_STATUS_HEADER, status, 'etag', page.etag, 'vary', 'accept-encoding')
    if (variant !== 'not-modified') {
      if (variant !== 'identity') list.push('content-encoding', variant)
      list.push('content-length', String(bodyOf(page, variant).byteLength))
    }
    lists[variant] = list
  }
  return list
}

/**
 * A page-cache hit answered before Fastify sees the request: the cached
 * bytes (in the gzip or brotli variant the client asked for, once made) with the headers the rendered page
 * had, written straight to the socket. A hit then costs little more than
 * writing bytes. Anything that is not a plain anonymous GET or HEAD of a
 * cached page returns false and goes through the full route, which applies
 * the same rules.
 */
export function createPageCacheHits(options: PageCacheHitOptions): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    const method = request.method
    if ((method !== 'GET' && method !== 'HEAD') || !options.accepting()) return false
    const url = request.url ?? ''
    if (url.startsWith('//') || maybePreview(request, url)) return false
    const key = pageKeyOfUrl(url, options.routes)
    if (key === undefined) return false
    const pageCache = options.pageCache
    const page = pageCache.get(key)
    if (!page) return false
    const modified = !notModified(request, page.etag)
    const variant = modified ? chooseVariant(request, key, page, pageCache) : 'not-modified'
    // The encoding asked for is being made: the full route compresses the page as it goes out meanwhile.
    if (variant === undefined) return false
    const status: HitStatus = pageCache.isStale(page) ? 'STALE' : 'HIT'

    const requestId = requestIdOf(request)
    const headers = [...headList(page, variant, status), REQUEST_ID_HEADER, requestId]
    if (options.isHttps(request)) headers.push('strict-transport-security', options.strictTransportSecurity)
    if (variant === 'not-modified') {
      response.writeHead(304, headers).end()
      options.onHit(request, requestId, 304, status)
      return true
    }
    response.writeHead(page.statusCode, headers)
    response.end(method === 'HEAD' ? undefined : bodyOf(page, variant))
    options.onHit(request, requestId, page.statusCode, status)
    return true
  }
}

/** Headers that belong to one response, not to the page: never stored with it. */
const PER_RESPONSE_HEADERS = new Set([
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'date',
  'connection',
  'keep-alive',
  'etag',
  'vary',
  'set-cookie',
  'strict-transport-security',
  REQUEST_ID_HEADER,
  CACHE_STATUS_HEADER,
])

/** The headers of a rendered answer (the security headers included) as a cached page keeps them. */
export function headersForCache(headers: Record<string, unknown>): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    if (PER_RESPONSE_HEADERS.has(lower) || value === undefined) continue
    kept[lower] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return kept
}

/**
 * Where the server finds the page-cache hits: the server is made before the
 * page cache, so its plugin puts them here once it is set up. Until then, and
 * without PAGE_CACHE_FAST_PATH, every request goes to Fastify.
 */
export interface FastPath {
  answer: (request: IncomingMessage, response: ServerResponse) => boolean
}

export const noFastPathYet = (): FastPath => ({ answer: () => false })

/**
 * An HTTP server like the one Fastify makes for itself, that first offers
 * each request to the fast path (the page-cache hits) and hands the rest to Fastify.
 */
export function serverWithPageCacheHits(
  fastifyHandler: (request: IncomingMessage, response: ServerResponse) => void,
  options: { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number; maxHeaderSize?: number },
  fastPath: FastPath,
  headersTimeoutMs?: number,
): Server {
  // Node checks both timeouts only this often (30 s by default): a slow client is cut off near its deadline, not up to 30 s after it.
  const checkEvery = Math.max(50, Math.min(1000, Math.floor(Math.min(options.requestTimeout || Infinity, headersTimeoutMs ?? Infinity) / 4)))
  const server = createServer({ connectionsCheckingInterval: checkEvery, maxHeaderSize: options.maxHeaderSize }, (request, response) => {
    if (!fastPath.answer(request, response)) fastifyHandler(request, response)
  })
  if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout
  if (headersTimeoutMs !== undefined) server.headersTimeout = headersTimeoutMs
  if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout
  if (options.connectionTimeout) server.setTimeout(options.connectionTimeout)
  return server
}
