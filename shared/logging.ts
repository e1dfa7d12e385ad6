import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify'
import { CACHE_STATUS_HEADER, PREVIEW_TOKEN_QUERY_PARAM, REQUEST_ID_HEADER } from './constants.ts'
import { type LogFormat, type LogLevel, REQUEST_ID_PATTERN } from './env.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Health, readiness and metrics, asked by machines every few seconds: their request lines are at debug. */
    probe?: boolean
  }
}

/** The route options of a probe's route. */
export const PROBE_ROUTE = { config: { probe: true } }

/** How much of a request's address a log line keeps: a long address costs its sender, not the disk (its length is logged beside). */
export const LOGGED_URL_PREFIX = 200

const REDACTED = '[Redacted]'

/** A query parameter's name as the query parser reads it (`%74oken` is `token`); undefined when it does not decode. */
function decodedName(name: string): string | undefined {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '))
  } catch {
    return undefined
  }
}

/**
 * Tokens never reach a log line: the value of every query parameter that
 * reads as `token`, whatever the encoding of its name, is replaced (one whose
 * name does not decode too: it may read as `token` to some parser).
 */
export function redactUrl(url: string): string {
  const cut = url.indexOf('?')
  if (cut === -1) return url
  const pairs = url.slice(cut + 1).split('&')
  let changed = false
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i] as string
    const equals = pair.indexOf('=')
    if (equals === -1) continue
    const name = decodedName(pair.slice(0, equals))
    if (name !== undefined && name !== PREVIEW_TOKEN_QUERY_PARAM) continue
    pairs[i] = `${pair.slice(0, equals + 1)}${REDACTED}`
    changed = true
  }
  return changed ? `${url.slice(0, cut + 1)}${pairs.join('&')}` : url
}

/** A request's address as a log line shows it: its first LOGGED_URL_PREFIX characters, tokens redacted, and its length when it was cut. */
export function loggedRequest(request: { method: string; url: string }): { method: string; url: string; urlLength?: number } {
  const { method, url } = request
  // Cut before redacting: a token cut short is still all redacted (it runs to the end), and nothing past the prefix is read.
  if (url.length <= LOGGED_URL_PREFIX) return { method, url: redactUrl(url) }
  return { method, url: redactUrl(url.slice(0, LOGGED_URL_PREFIX)), urlLength: url.length }
}

export const LOG_REDACT_PATHS = [
  'req.headers["x-craft-token"]',
  'req.headers.cookie',
  'req.headers.authorization',
  'res.headers["set-cookie"]',
  'headers["x-craft-token"]',
  'headers.authorization',
  'headers.cookie',
]

/** The request id of a request: a valid incoming x-request-id, or a new one. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER]
  return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID()
}

/** What the one line of an answered request says; the page-cache fast path logs the same. */
export interface CompletedRequest {
  req: { method?: string | undefined; url?: string | undefined }
  res: { statusCode: number }
  /** The answer's X-Cache, when it has one. */
  cache?: string | undefined
  /** Milliseconds from the request to the answer. */
  responseTime: number
  requestId?: string
}

/**
 * Fastify's request lines, one per answered request: 'request completed' with
 * the method, address (a bounded prefix, shared/logging.ts), status, X-Cache
 * and time. 'incoming request' is debug (at info it doubled every request's
 * bytes on disk); probes' lines are debug too.
 */
export class RequestLogController extends LogController {
  readonly #pretty: boolean

  constructor(format: LogFormat) {
    super({ requestIdLogLabel: 'requestId' })
    this.#pretty = format === 'pretty'
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const cache = reply.getHeader(CACHE_STATUS_HEADER)
    const line: CompletedRequest = { req: request, res: reply, cache: typeof cache === 'string' ? cache : undefined, responseTime: reply.elapsedTime }
    if (error) reply.log.error({ ...line, responseTime: roundedMs(line.responseTime), err: error }, 'request errored')
    else this.completed(reply.log, line, isProbe(request) ? 'debug' : 'info')
  }

  /** The line of an answered request. In a terminal the request is the message; in JSON the message says 'request completed'. */
  completed(log: FastifyBaseLogger, line: CompletedRequest, level: 'info' | 'debug' = 'info'): void {
    // Asked first: the page-cache hits come here at tens of thousands a second, mostly with the line switched off.
    if (!levelEnabled(log, level)) return
    const fields = { ...line, responseTime: roundedMs(line.responseTime) }
    if (this.#pretty) log[level](fields)
    else log[level](fields, 'request completed')
  }
}

function isProbe(request: FastifyRequest): boolean {
  return request.routeOptions.config?.probe === true
}

/** Whether a line at this level would be written: pino's loggers can tell; any other logger is asked to write it. */
export function levelEnabled(log: FastifyBaseLogger, level: 'info' | 'debug'): boolean {
  const asks = (log as Partial<{ isLevelEnabled: (level: string) => boolean }>).isLevelEnabled
  return typeof asks === 'function' ? asks.call(log, level) : true
}

function roundedMs(ms: number): number {
  return Math.round(ms * 100) / 100
}

/**
 * pino-pretty, in pino's worker thread, for people at a terminal: one line
 * per answered request, `GET /over-ons 200 MISS 12.3ms [request id]`;
 * other lines their message after the request id, if any.
 */
function prettyTransport() {
  return {
    target: 'pino-pretty',
    options: {
      colorize: process.stdout.hasColors?.() ?? false,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,req,res,cache,responseTime,requestId',
      messageFormat:
        '{if req.method}{req.method} {req.url} {end}{if res.statusCode}{res.statusCode} {end}{if cache}{cache} {end}{if responseTime}{responseTime}ms {end}{if requestId}[{requestId}] {end}{msg}',
      singleLine: true,
    },
  }
}

export interface LogSettings {
  /** The name on every line: gateway or renderer. */
  service: string
  level: LogLevel
  format: LogFormat
}

/**
 * Fastify options both services log with: JSON lines, or pino-pretty in a
 * terminal; redacted either way, one request id label. Into `stream` (tests
 * collect lines) always JSON.
 */
export function loggingOptions(settings: LogSettings, stream?: NodeJS.WritableStream) {
  const format = stream ? 'json' : settings.format
  return {
    logger: {
      name: settings.service,
      level: settings.level,
      redact: { paths: LOG_REDACT_PATHS, censor: '[Redacted]' },
      serializers: {
        req: loggedRequest,
      },
      ...(stream ? { stream } : format === 'pretty' ? { transport: prettyTransport() } : {}),
    },
    genReqId: requestIdOf,
    logController: new RequestLogController(format),
  }
}
