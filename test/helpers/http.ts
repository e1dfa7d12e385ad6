import type { IncomingHttpHeaders } from 'node:http'
import { type Dispatcher, request } from 'undici'

/** An answer, read whole. */
export interface Answer {
  status: number
  headers: IncomingHttpHeaders
  /** `x-cache`: HIT, MISS, STALE, BYPASS; undefined when the gateway did not say. */
  cache: string | undefined
  body: string
}

/** A page: an answer whose body is its HTML. */
export interface PageAnswer extends Omit<Answer, 'body'> {
  html: string
}

export interface GetOptions {
  headers?: Record<string, string>
  method?: 'GET' | 'HEAD'
  dispatcher?: Dispatcher
  /** For undici's headersTimeout and bodyTimeout, when a test holds a render longer than their default. */
  timeoutMs?: number
}

/** Asks for `url` and reads the whole answer. */
export async function get(url: string, options: GetOptions = {}): Promise<Answer> {
  const response = await request(url, {
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.timeoutMs === undefined ? {} : { headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs }),
  })
  const cache = response.headers['x-cache']
  return { status: response.statusCode, headers: response.headers, cache: typeof cache === 'string' ? cache : undefined, body: await response.body.text() }
}

/** `get` for a page: the body as `html`. */
export async function getPage(url: string, options: GetOptions = {}): Promise<PageAnswer> {
  const { body, ...answer } = await get(url, options)
  return { ...answer, html: body }
}

/** What a purge is sent with: the webhook's secret, and any other header (`x-forwarded-for`). */
export interface PurgeOptions {
  secret?: string | undefined
  headers?: Record<string, string>
}

/** The purge webhook's answer: its JSON (`{ purged }`, or `{ errors }` with a code). */
export interface PurgeAnswer {
  status: number
  headers: IncomingHttpHeaders
  json: Record<string, any>
}

/** Sends the purge webhook as Craft's does: `POST {base}/api/purge` with `body` as JSON. */
export async function purge(base: string, body: unknown, options: PurgeOptions = {}): Promise<PurgeAnswer> {
  const response = await request(`${base}/api/purge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(options.secret === undefined ? {} : { 'x-purge-secret': options.secret }), ...options.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: response.statusCode, headers: response.headers, json: (await response.body.json()) as Record<string, any> }
}
